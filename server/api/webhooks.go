package api

import (
	"time"

	"licensectl/store"
)

// CreateWebhookRequest is the body of POST /applications/{id}/webhooks.
type CreateWebhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
}

// UpdateWebhookRequest is the body of PATCH /applications/{id}/webhooks/{webhookId};
// absent fields are left alone.
type UpdateWebhookRequest struct {
	URL    *string  `json:"url,omitempty"`
	Events []string `json:"events,omitempty"`
	Status *string  `json:"status,omitempty"`
}

// Webhook is an endpoint in lists and in answers to PATCH: never its secret.
type Webhook struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"application_id"`
	URL           string    `json:"url"`
	Events        []string  `json:"events"`
	Status        string    `json:"status"`
	CreatedAt     time.Time `json:"created_at"`
}

// WebhookCreated answers registration: the only time the secret is shown.
type WebhookCreated struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"application_id"`
	URL           string    `json:"url"`
	Events        []string  `json:"events"`
	Status        string    `json:"status"`
	Secret        string    `json:"secret"`
	CreatedAt     time.Time `json:"created_at"`
}

// WebhookTestResult answers a test ping; ResponseStatus is 0 when no answer came.
type WebhookTestResult struct {
	Success        bool   `json:"success"`
	DeliveryID     string `json:"delivery_id"`
	Status         string `json:"status"`
	ResponseStatus int    `json:"response_status"`
}

// Delivery is a delivery in an endpoint's list.
type Delivery struct {
	ID             string `json:"id"`
	Event          string `json:"event"`
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	ResponseStatus int    `json:"response_status"`
	// LastError says why the last attempt got no answer; "" when one came.
	LastError string `json:"last_error"`
	// LastLatencyMS is how long the last attempt took, in milliseconds.
	LastLatencyMS int64      `json:"last_latency_ms"`
	LastAttemptAt *time.Time `json:"last_attempt_at"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// DeliveryPage is a page of deliveries.
type DeliveryPage struct {
	Data    []Delivery `json:"data"`
	Total   int        `json:"total"`
	Page    int        `json:"page"`
	PerPage int        `json:"per_page"`
}

// WebhookOf is the list item of an endpoint.
func WebhookOf(w *store.Webhook) Webhook {
	events := w.Events
	if events == nil {
		events = []string{}
	}
	return Webhook{ID: w.ID, ApplicationID: w.AppID, URL: w.URL, Events: events, Status: w.Status, CreatedAt: w.CreatedAt}
}

// Domain is the endpoint the item describes (no secret).
func (w Webhook) Domain() *store.Webhook {
	return &store.Webhook{ID: w.ID, AppID: w.ApplicationID, URL: w.URL, Events: w.Events, Status: w.Status, CreatedAt: w.CreatedAt}
}

// Domain is the created endpoint, with its secret.
func (w WebhookCreated) Domain() *store.Webhook {
	return &store.Webhook{ID: w.ID, AppID: w.ApplicationID, URL: w.URL, Events: w.Events, Status: w.Status, Secret: w.Secret, CreatedAt: w.CreatedAt}
}

// DeliveryOf is the list item of a delivery.
func DeliveryOf(d *store.Delivery) Delivery {
	return Delivery{ID: d.ID, Event: d.Event, Status: d.Status, Attempts: d.Attempts, ResponseStatus: d.ResponseStatus,
		LastError: d.LastError, LastLatencyMS: d.LastLatency.Milliseconds(),
		LastAttemptAt: d.LastAttemptAt, NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt}
}

// Domain is the delivery the item describes (no body).
func (d Delivery) Domain() *store.Delivery {
	return &store.Delivery{ID: d.ID, Event: d.Event, Status: d.Status, Attempts: d.Attempts, ResponseStatus: d.ResponseStatus,
		LastError: d.LastError, LastLatency: time.Duration(d.LastLatencyMS) * time.Millisecond,
		LastAttemptAt: d.LastAttemptAt, NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt}
}

// WebhookTestResultOf describes a ping's attempt of delivery id.
func WebhookTestResultOf(id string, a store.Attempt) WebhookTestResult {
	status := store.DeliveryFailed
	if a.OK() {
		status = store.DeliveryDelivered
	}
	return WebhookTestResult{Success: a.OK(), DeliveryID: id, Status: status, ResponseStatus: a.Status}
}

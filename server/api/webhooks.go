package api

import "time"

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
	ID             string     `json:"id"`
	Event          string     `json:"event"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	ResponseStatus int        `json:"response_status"`
	LastAttemptAt  *time.Time `json:"last_attempt_at"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	CreatedAt      time.Time  `json:"created_at"`
}

// DeliveryPage is a page of deliveries.
type DeliveryPage struct {
	Data    []Delivery `json:"data"`
	Total   int        `json:"total"`
	Page    int        `json:"page"`
	PerPage int        `json:"per_page"`
}

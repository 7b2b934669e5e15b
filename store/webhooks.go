package store

import (
	"context"
	"time"
)

// Webhook endpoint statuses.
const (
	WebhookActive   = "active"
	WebhookDisabled = "disabled"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Webhook is an application's endpoint. Secret signs deliveries; it is shown
// once, at creation, and read again only by the dispatcher.
type Webhook struct {
	ID           string
	OrgID        string
	AppID        string
	URL          string
	Events       []string
	Status       string
	Secret       string
	FailingSince *time.Time // first failure of the current unbroken run; nil when healthy
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// WebhookUpdate changes the fields that are set (Events when non-nil).
type WebhookUpdate struct {
	URL    *string
	Events []string
	Status *string
}

// Delivery is one event on its way to one endpoint.
type Delivery struct {
	ID             string
	OrgID          string
	AppID          string
	WebhookID      string
	Event          string
	Status         string
	Attempts       int
	ResponseStatus int
	LastAttemptAt  *time.Time
	NextAttemptAt  *time.Time // set while pending
	CreatedAt      time.Time
	Body           []byte // the signed payload, the same on every attempt
}

// DeliveryFilter selects a page of an endpoint's deliveries.
type DeliveryFilter struct {
	Status string
	PageRequest
}

// DeliveryJob is a due delivery with what sending it needs.
type DeliveryJob struct {
	Delivery *Delivery
	URL      string
	Secret   string
}

// Attempt is the outcome of one send: Status is the HTTP status, 0 when no
// answer came.
type Attempt struct {
	Status int
	At     time.Time
}

// OK reports whether the attempt succeeded (2xx).
func (a Attempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// RetryPolicy is what the configuration decides about failures: the delays
// between attempts (N entries, N retries) and how long an endpoint may fail
// without a break before it is disabled.
type RetryPolicy struct {
	Schedule     []time.Duration
	DisableAfter time.Duration
}

// Webhooks manages endpoints and their deliveries.
type Webhooks interface {
	// CreateWebhook registers an endpoint with a new secret. The URL must
	// already have passed the network checks (webhook.CheckURL). Returns
	// validation_failed (events), not_found.
	CreateWebhook(ctx context.Context, ref AppRef, url string, events []string) (*Webhook, error)
	// ListWebhooks lists the application's endpoints, newest first.
	ListWebhooks(ctx context.Context, ref AppRef) ([]*Webhook, error)
	// UpdateWebhook changes url, events or status; re-enabling clears the
	// failure clock and resumes waiting deliveries. Returns
	// validation_failed, not_found.
	UpdateWebhook(ctx context.Context, ref AppRef, id string, u WebhookUpdate) (*Webhook, error)
	// DeleteWebhook removes the endpoint and drops its deliveries. Returns not_found.
	DeleteWebhook(ctx context.Context, ref AppRef, id string) error
	// ListDeliveries pages an endpoint's deliveries, newest first. Returns
	// validation_failed (status), not_found.
	ListDeliveries(ctx context.Context, ref AppRef, webhookID string, f DeliveryFilter) (*Page[*Delivery], error)
	// RetryDelivery makes a delivery pending and due now. Returns not_found.
	RetryDelivery(ctx context.Context, ref AppRef, webhookID, deliveryID string) error
}

// Outbox is what the dispatcher needs from the store.
type Outbox interface {
	// DueDeliveries returns up to limit deliveries due at now, skipping the
	// ids in skip and endpoints that reached perEndpoint in flight (busy
	// counts them).
	DueDeliveries(ctx context.Context, now time.Time, limit, perEndpoint int, busy map[string]int, skip map[string]bool) ([]*DeliveryJob, error)
	// RecordAttempt stores the outcome of an attempt: delivered on 2xx, else
	// the next try per p or failed; 410 and a failure run longer than
	// p.DisableAfter disable the endpoint.
	RecordAttempt(ctx context.Context, deliveryID string, a Attempt, p RetryPolicy) error
	// TestDelivery records a webhook.test delivery to the endpoint, not
	// queued, and returns it with what sending it needs. Returns not_found.
	TestDelivery(ctx context.Context, ref AppRef, webhookID string) (*DeliveryJob, error)
	// OutboxStats reports the queue depth and the oldest due time (zero when none).
	OutboxStats(ctx context.Context) (pending int, oldestDue time.Time, err error)
	// Enqueued signals after a commit that queued deliveries.
	Enqueued() <-chan struct{}
}

// OrgAuditLog reads the organization-level audit log: the entries of events
// that belong to no application (members, API keys, the organization).
type OrgAuditLog interface {
	// ListOrgAudit returns a page of the organization's entries, newest first,
	// with the filters of ListAudit. Returns validation_failed, not_found.
	ListOrgAudit(ctx context.Context, orgID string, f AuditFilter) (*Page[*AuditEntry], error)
}

// AuditRetention is the maintenance the audit retention sweeper needs.
type AuditRetention interface {
	// PruneAudit removes up to batch audit entries older than the
	// audit_log_retention_days of their organization's tier (unlimited keeps
	// them) and up to batch finished deliveries older than the same, and
	// reports how many it removed. Callers repeat it until it removes nothing.
	PruneAudit(ctx context.Context, batch int) (int, error)
}

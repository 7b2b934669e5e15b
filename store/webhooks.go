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
	// TimedOut: the last attempt of the failure run ran into
	// webhooks.timeout, so the endpoint gets one send in flight instead of
	// PerEndpoint. It belongs to the run and ends with it.
	TimedOut  bool
	CreatedAt time.Time
	UpdatedAt time.Time
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
	// LastError says why the last attempt got no answer ("" when one came).
	LastError string
	// LastLatency is how long the last attempt took, dial to answer.
	LastLatency   time.Duration
	LastAttemptAt *time.Time
	NextAttemptAt *time.Time // set while pending
	DoneAt        *time.Time // delivered or failed at
	CreatedAt     time.Time
	Body          []byte // the signed payload, the same on every attempt
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
// answer came, and then Error says why.
type Attempt struct {
	Status  int
	At      time.Time
	Latency time.Duration
	Error   string
	// TimedOut is an attempt cut by webhooks.timeout: its endpoint gets one
	// send in flight, not two, until an attempt ends otherwise.
	TimedOut bool
}

// MaxEventPatterns bounds the subscription patterns of one endpoint.
const MaxEventPatterns = 50

// DefaultMaxEndpoints is webhooks.max_endpoints unless configured.
const DefaultMaxEndpoints = 20

// Claim is what a dispatcher asks of the outbox. Every delivery it is handed
// is leased to Owner until now+Lease: no other claim hands it out while the
// lease holds, and a dispatcher that dies leaves leases that run out, after
// which the delivery is claimed again (at least once; the webhook-id stays).
type Claim struct {
	// Owner names the dispatcher (one per server process).
	Owner string
	// Limit is how many deliveries to hand out at most (free workers).
	Limit int
	// PerEndpoint bounds the live leases of one endpoint, whoever holds
	// them; an endpoint whose last attempt timed out gets 1.
	PerEndpoint int
	// PerApp bounds the live leases Owner holds for one application, so
	// that one tenant cannot take more than its share of the workers.
	PerApp int
	// Lease is how long a claim holds: longer than a send and its record.
	Lease time.Duration
}

// EndpointCap is how many sends an endpoint may have in flight under c:
// PerEndpoint, or one while its last attempt ran into webhooks.timeout.
func (c Claim) EndpointCap(timedOut bool) int {
	if timedOut {
		return min(c.PerEndpoint, 1)
	}
	return c.PerEndpoint
}

// Full reports whether an endpoint (timedOut: its last attempt timed out)
// with perHook live leases, whoever holds them, or its application with
// perApp of c.Owner's, can take no more sends under c.
func (c Claim) Full(timedOut bool, perHook, perApp int) bool {
	return perHook >= c.EndpointCap(timedOut) || perApp >= c.PerApp
}

// AdmitPing refuses, with conflict, a test ping to w while the endpoint or
// its application is at the bound of c (Full): the ping waits for a send
// to end rather than pass the bound claims keep.
func (c Claim) AdmitPing(w *Webhook, perHook, perApp int) error {
	if c.Full(w.TimedOut, perHook, perApp) {
		return Errorf(ECodeConflict, "the endpoint has %d sends in flight and its application %d, the bounds of webhooks.workers: ping again when they end", perHook, perApp)
	}
	return nil
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

// Outbox is what the dispatcher needs from the store. A change writes one
// outbox event per event, whatever the number of endpoints; ExpandEvents
// turns events into one delivery per endpoint that matched when the event
// happened, and ClaimDue leases due deliveries to a dispatcher.
type Outbox interface {
	// ExpandEvents expands up to limit outbox events, oldest first, into
	// their deliveries, and reports how many it expanded (0: none is left).
	ExpandEvents(ctx context.Context, limit int) (int, error)
	// ClaimDue leases up to c.Limit deliveries due at now and returns them.
	// It takes them round-robin over the endpoints that have due work (one
	// per endpoint per round, oldest first within an endpoint, the rounds
	// starting where the last claim stopped), skips deliveries under a live
	// lease, and keeps c.PerEndpoint and c.PerApp. A database implements
	// it with SELECT … FOR UPDATE SKIP LOCKED and a leased_until column.
	ClaimDue(ctx context.Context, now time.Time, c Claim) ([]*DeliveryJob, error)
	// RecordAttempt stores the outcome of an attempt and ends its lease:
	// delivered on 2xx, else the next try per p or failed; 410 and a
	// failure run longer than p.DisableAfter disable the endpoint.
	RecordAttempt(ctx context.Context, deliveryID string, a Attempt, p RetryPolicy) error
	// ReleaseClaim ends owner's lease of a delivery whose send was cut
	// short (the dispatcher stopping), recording no attempt: the delivery
	// is due again at once, for another server or after a restart, rather
	// than when the lease runs out. A lease owner no longer holds is kept.
	ReleaseClaim(ctx context.Context, deliveryID, owner string) error
	// TestDelivery records a webhook.test delivery to the endpoint, not
	// queued, leased to c.Owner as ClaimDue would (now is the claim's
	// time), and returns it with what sending it needs. Returns not_found,
	// and conflict when the endpoint or the application is at the bound of
	// c (the ping waits for a send to end).
	TestDelivery(ctx context.Context, ref AppRef, webhookID string, now time.Time, c Claim) (*DeliveryJob, error)
	// OutboxStats reports the queue depth (deliveries due or waiting for a
	// retry, and events not yet expanded) and the oldest due time (zero
	// when none).
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

// Check validates a deliveries filter: a page within bounds and a status of
// a delivery, if any. Returns validation_failed.
func (f *DeliveryFilter) Check() error {
	if err := CheckStorableFields(f); err != nil {
		return err
	}
	if err := f.Normalize(); err != nil {
		return err
	}
	switch f.Status {
	case "", DeliveryPending, DeliveryDelivered, DeliveryFailed:
		return nil
	}
	return Invalid("status", "status must be pending, delivered or failed")
}

// Check validates the fields of an endpoint change that are present: event
// patterns and a status of an endpoint. Returns validation_failed.
func (u WebhookUpdate) Check() error {
	if u.Events != nil {
		if err := CheckEventPatterns(u.Events); err != nil {
			return err
		}
	}
	if u.Status != nil && *u.Status != WebhookActive && *u.Status != WebhookDisabled {
		return Invalid("status", "status must be active or disabled")
	}
	return nil
}

// DeliveryState is what an attempt changes about a delivery.
type DeliveryState struct {
	Status        string
	Attempts      int
	NextAttemptAt *time.Time // set while pending
	DoneAt        *time.Time // delivered or failed at
}

// EndpointHealth is what attempts change about an endpoint.
type EndpointHealth struct {
	// FailingSince is when the endpoint's unbroken run of failures began.
	FailingSince *time.Time
	// TimedOut: its last attempt ran into the timeout (one send in flight).
	TimedOut bool
}

// Endpoint disabling reasons, as the webhook.disabled audit entry says them.
const (
	DisableGone    = "gone"          // the endpoint answered 410
	DisableFailing = "failing_since" // failing for RetryPolicy.DisableAfter
)

// Attempted is the transition of one attempt a of a delivery in state d
// to an endpoint in health h (docs/design.md §9): delivered on 2xx; otherwise
// pending again after the schedule's next wait, or failed once the
// schedule is spent. It also returns why the endpoint must now be disabled
// ("" to keep it). A test ping (probe) ends with its one attempt and says
// nothing about the endpoint's health.
func (p RetryPolicy) Attempted(d DeliveryState, h EndpointHealth, probe bool, a Attempt) (DeliveryState, EndpointHealth, string) {
	at := a.At
	d.Attempts++
	d.NextAttemptAt = nil
	if probe {
		d.Status, d.DoneAt = DeliveryFailed, &at
		if a.OK() {
			d.Status = DeliveryDelivered
		}
		return d, h, ""
	}
	h.TimedOut = a.TimedOut
	if a.OK() {
		d.Status, d.DoneAt = DeliveryDelivered, &at
		h.FailingSince = nil
		return d, h, ""
	}
	if h.FailingSince == nil {
		h.FailingSince = &at
	}
	if d.Attempts <= len(p.Schedule) {
		next := at.Add(p.Schedule[d.Attempts-1])
		d.Status, d.NextAttemptAt = DeliveryPending, &next
	} else {
		d.Status, d.DoneAt = DeliveryFailed, &at
	}
	switch {
	case a.Status == 410:
		return d, h, DisableGone
	case p.DisableAfter > 0 && at.Sub(*h.FailingSince) >= p.DisableAfter:
		return d, h, DisableFailing
	}
	return d, h, ""
}

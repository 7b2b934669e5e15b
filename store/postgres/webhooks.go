package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Webhooks = (*DB)(nil)

// saveWebhook writes w (insert when new) and forgets the endpoints this
// transaction has read for the outbox.
func (t *txn) saveWebhook(w *storedoc.Webhook, isNew bool) error {
	t.hooks = nil
	if isNew {
		_, err := t.exec(`INSERT INTO webhooks (id, org_id, app_id, status, doc) VALUES ($1, $2, $3, $4, $5)`,
			w.ID, w.OrgID, w.AppID, w.Status, js(w))
		return err
	}
	_, err := t.exec(`UPDATE webhooks SET status = $2, doc = $3 WHERE id = $1`, w.ID, w.Status, js(w))
	return err
}

// deliveryRecord is the doc of a webhook_deliveries row: what only an attempt
// changes. The state the queue works on (status, next attempt, done at,
// queued, lease) and the payload are columns, so that disabling or
// enabling an endpoint moves its backlog in one UPDATE.
type deliveryRecord struct {
	ID             string        `json:"id"`
	OrgID          string        `json:"org"`
	AppID          string        `json:"app"`
	WebhookID      string        `json:"wh"`
	Event          string        `json:"ev"`
	Attempts       int           `json:"n,omitempty"`
	ResponseStatus int           `json:"rs,omitempty"`
	LastError      string        `json:"le,omitempty"`
	LastLatency    time.Duration `json:"lat,omitempty"`
	LastAttemptAt  *time.Time    `json:"la,omitempty"`
	CreatedAt      time.Time     `json:"ca"`
}

// deliveryCols are the columns of a delivery besides its doc.
type deliveryCols struct {
	Status        string
	NextAttemptAt *time.Time
	DoneAt        *time.Time
	Body          []byte // its own payload (a ping's); nil when it shares its event's
}

// domain is the delivery of doc d with its columns c.
func (d *deliveryRecord) domain(c deliveryCols) *store.Delivery {
	return &store.Delivery{ID: d.ID, OrgID: d.OrgID, AppID: d.AppID, WebhookID: d.WebhookID, Event: d.Event, Status: c.Status,
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, LastError: d.LastError, LastLatency: d.LastLatency,
		LastAttemptAt: d.LastAttemptAt, NextAttemptAt: c.NextAttemptAt, DoneAt: c.DoneAt, CreatedAt: d.CreatedAt, Body: c.Body}
}

// deliveryRecordOf is the doc of delivery d.
func deliveryRecordOf(d *store.Delivery) *deliveryRecord {
	return &deliveryRecord{ID: d.ID, OrgID: d.OrgID, AppID: d.AppID, WebhookID: d.WebhookID, Event: d.Event, Attempts: d.Attempts,
		ResponseStatus: d.ResponseStatus, LastError: d.LastError, LastLatency: d.LastLatency, LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt}
}

// LockWebhookSet implements store.Tx: the advisory lock of an
// organization's set of endpoints until the transaction ends. Every change
// to an endpoint that decides who hears an event (created, edited,
// enabled, disabled, deleted) holds it, and the expansion of the
// organization's events takes it shared (ShareWebhookSet): an event is
// expanded against the endpoints of its time on every server, and two
// creations cannot both pass webhooks.max_endpoints.
func (t *txn) LockWebhookSet(orgID string) error {
	_, err := t.exec(`SELECT pg_advisory_xact_lock(`+hooksLockKey+`)`, orgID)
	return err
}

// hooksLockKey is the advisory lock key of the organization $1's endpoints.
const hooksLockKey = `hashtextextended('licensectl webhooks ' || $1, 0)`

// dropDeliveries deletes the deliveries that match where (a condition
// on $1…$n of args) and the shared payloads none is left to use.
func (t *txn) dropDeliveries(where string, args ...any) error {
	rows, err := t.tx.Query(t.ctx, `DELETE FROM webhook_deliveries WHERE `+where+` RETURNING body_of::text`, args...)
	if err != nil {
		return err
	}
	var bodies []string
	if _, err := hookRows(rows, func(r pgx.CollectableRow) error {
		var of *string
		if err := r.Scan(&of); err != nil {
			return err
		}
		if of != nil {
			bodies = append(bodies, *of)
		}
		return nil
	}); err != nil || len(bodies) == 0 {
		return err
	}
	// The payload rows are locked first, so that two transactions dropping
	// the last deliveries of one event concurrently do not both see the
	// other's delivery and keep the payload for ever.
	if _, err := t.exec(`SELECT 1 FROM outbox_bodies WHERE event_id = ANY($1::uuid[]) ORDER BY event_id FOR UPDATE`, bodies); err != nil {
		return err
	}
	_, err = t.exec(`DELETE FROM outbox_bodies b WHERE b.event_id = ANY($1::uuid[])
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.body_of = b.event_id)`, bodies)
	return err
}

// hookRows calls fn on every row and reports how many there were.
func hookRows(rows pgx.Rows, fn func(pgx.CollectableRow) error) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := fn(rows); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// Webhook implements store.Tx.
func (t *txn) Webhook(appID, id string) (*store.Webhook, error) {
	w, err := mustDoc[storedoc.Webhook](t, "webhook", `SELECT doc FROM webhooks WHERE id = $1`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if w.AppID != appID {
		return nil, store.NotFound("webhook")
	}
	return w.Domain(), nil
}

// DeliveryPage implements store.Tx: the page's docs, then their columns
// in the same snapshot.
func (t *txn) DeliveryPage(webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	where, args := `webhook_id = $1`, []any{uuidOrNil(webhookID)}
	if f.Status != "" {
		where, args = `webhook_id = $1 AND status = $2`, append(args, f.Status)
	}
	page, err := listPage[deliveryRecord](t, "webhook_deliveries", where, args, f.PageRequest)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(page.Data))
	for i, d := range page.Data {
		ids[i] = d.ID
	}
	cols := map[string]deliveryCols{}
	rows, err := t.tx.Query(t.ctx, `SELECT id::text, status, next_attempt_at, done_at, body FROM webhook_deliveries WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, err
	}
	if _, err := hookRows(rows, func(r pgx.CollectableRow) error {
		var id string
		var c deliveryCols
		err := r.Scan(&id, &c.Status, &c.NextAttemptAt, &c.DoneAt, &c.Body)
		cols[id] = c
		return err
	}); err != nil {
		return nil, err
	}
	out := &store.Page[*store.Delivery]{Data: make([]*store.Delivery, 0, len(page.Data)), Total: page.Total, Page: page.Page,
		PerPage: page.PerPage, NextCursor: page.NextCursor}
	for _, d := range page.Data {
		out.Data = append(out.Data, d.domain(cols[d.ID]))
	}
	return out, nil
}

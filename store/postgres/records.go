package postgres

import (
	"time"

	"licensectl/store"
)

// The webhook record below belongs in webhooks.go, where store/bolt keeps
// its own; it moves there once the endpoint work under way settles.

// webhookRecord is an endpoint as stored: the domain's fields and what only
// the dispatcher reads.
type webhookRecord struct {
	ID           string     `json:"id"`
	OrgID        string     `json:"org"`
	AppID        string     `json:"app"`
	URL          string     `json:"url"`
	Events       []string   `json:"ev"`
	Status       string     `json:"st"`
	Secret       string     `json:"sec"`
	FailingSince *time.Time `json:"fail,omitempty"`
	// TimedOut: the last attempt ran into webhooks.timeout, so the endpoint
	// gets one send in flight instead of two.
	TimedOut  bool      `json:"to,omitempty"`
	CreatedAt time.Time `json:"ca"`
	UpdatedAt time.Time `json:"ua"`
}

func (r *webhookRecord) domain() *store.Webhook {
	return &store.Webhook{ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, URL: r.URL, Events: r.Events, Status: r.Status,
		Secret: r.Secret, FailingSince: r.FailingSince, TimedOut: r.TimedOut, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// webhookRecordOf is the record of endpoint w.
func webhookRecordOf(w *store.Webhook) *webhookRecord {
	return &webhookRecord{ID: w.ID, OrgID: w.OrgID, AppID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, FailingSince: w.FailingSince, TimedOut: w.TimedOut, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// saveWebhook writes w (insert when new) and forgets the endpoints this
// transaction has read for the outbox.
func (t *txn) saveWebhook(w *webhookRecord, isNew bool) error {
	t.hooks = nil
	if isNew {
		_, err := t.exec(`INSERT INTO webhooks (id, org_id, app_id, status, doc) VALUES ($1, $2, $3, $4, $5)`,
			w.ID, w.OrgID, w.AppID, w.Status, js(w))
		return err
	}
	_, err := t.exec(`UPDATE webhooks SET status = $2, doc = $3 WHERE id = $1`, w.ID, w.Status, js(w))
	return err
}

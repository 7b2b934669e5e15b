package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

// webhookRecord is a webhook endpoint on disk.
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
	return &store.Webhook{ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, URL: r.URL, Events: append([]string(nil), r.Events...),
		Status: r.Status, Secret: r.Secret, FailingSince: r.FailingSince, TimedOut: r.TimedOut, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// webhookRecordOf is the record of endpoint w.
func webhookRecordOf(w *store.Webhook) *webhookRecord {
	return &webhookRecord{ID: w.ID, OrgID: w.OrgID, AppID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, FailingSince: w.FailingSince, TimedOut: w.TimedOut, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

var _ store.Webhooks = (*DB)(nil)

// webhook loads an endpoint of ref's application; another application's is not_found.
func (t *txn) webhook(ref store.AppRef, id string) (*webhookRecord, error) {
	w := new(webhookRecord)
	if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
		return nil, err
	}
	if w.AppID != ref.AppID || w.OrgID != ref.OrgID {
		return nil, store.NotFound("webhook")
	}
	return w, nil
}

// ListWebhooks implements store.Webhooks.
func (db *DB) ListWebhooks(ctx context.Context, ref store.AppRef) ([]*store.Webhook, error) {
	out := []*store.Webhook{}
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		for _, id := range t.all(bHooksApp, idb(ref.AppID)) {
			w := new(webhookRecord)
			if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
				return err
			}
			out = append(out, w.domain())
		}
		return nil
	})
	return out, err
}

// purgeWebhook removes an endpoint, its indexes and all its deliveries.
func (t *txn) purgeWebhook(w *webhookRecord) error {
	t.hooks = nil
	for _, did := range t.all(bDelivHook, idb(w.ID)) {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, did, "delivery", d); err != nil {
			return err
		}
		if err := t.dropDelivery(d); err != nil {
			return err
		}
	}
	if err := t.unindex(bHooksApp, idb(w.AppID), w.ID); err != nil {
		return err
	}
	if err := t.unindex(bHooksOrg, idb(w.OrgID), w.ID); err != nil {
		return err
	}
	return t.del(bHooks, w.ID)
}

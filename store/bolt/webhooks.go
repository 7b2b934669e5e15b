package bolt

import (
	"context"
	"crypto/rand"
	"encoding/base64"
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
		Status: r.Status, Secret: r.Secret, FailingSince: r.FailingSince, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

var _ store.Webhooks = (*DB)(nil)

// newWebhookSecret is the Standard Webhooks form: whsec_ and the standard
// base64 of 24 random bytes.
func newWebhookSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return store.PrefixWebhook + base64.StdEncoding.EncodeToString(b[:])
}

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

// CreateWebhook implements store.Webhooks.
func (db *DB) CreateWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	if err := store.CheckEventPatterns(events); err != nil {
		return nil, err
	}
	var out *store.Webhook
	err := db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
		if err != nil {
			return err
		}
		if n, most := t.count(bHooksApp, idb(a.ID)), db.MaxEndpoints(); n >= most {
			return store.Errorf(store.ECodeConflict, "the application has %d webhook endpoints, the most webhooks.max_endpoints allows: delete one or raise the setting", n)
		}
		if err := t.settle(a.OrgID, a.ID); err != nil {
			return err
		}
		w := &webhookRecord{ID: store.NewID(), OrgID: a.OrgID, AppID: a.ID, URL: url, Events: events, Status: store.WebhookActive,
			Secret: newWebhookSecret(), CreatedAt: t.now, UpdatedAt: t.now}
		if err := t.put(bHooks, w.ID, w); err != nil {
			return err
		}
		if err := t.index(bHooksApp, idb(a.ID), w.ID); err != nil {
			return err
		}
		if err := t.index(bHooksOrg, idb(a.OrgID), w.ID); err != nil {
			return err
		}
		out = w.domain()
		return t.audit(auditEvent{Event: store.EventWebhookCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: appEnvIDs(a),
			Target: store.Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"url": url, "events": events}})
	})
	return out, err
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

// UpdateWebhook implements store.Webhooks.
func (db *DB) UpdateWebhook(ctx context.Context, ref store.AppRef, id string, u store.WebhookUpdate) (*store.Webhook, error) {
	if err := u.Check(); err != nil {
		return nil, err
	}
	var out *store.Webhook
	err := db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
		if err != nil {
			return err
		}
		w, err := t.webhook(ref, id)
		if err != nil {
			return err
		}
		if err := t.settle(w.OrgID, w.AppID); err != nil {
			return err
		}
		meta := map[string]any{}
		if u.URL != nil && *u.URL != w.URL {
			w.URL, meta["url"] = *u.URL, *u.URL
		}
		if u.Events != nil {
			w.Events, meta["events"] = u.Events, u.Events
		}
		event := store.EventWebhookUpdated
		if u.Status != nil && *u.Status != w.Status {
			meta["status"] = *u.Status
			if *u.Status == store.WebhookDisabled {
				event = store.EventWebhookDisabled
				err = t.disableWebhook(w)
			} else {
				err = t.enableWebhook(w)
			}
			if err != nil {
				return err
			}
		}
		out = w.domain()
		if len(meta) == 0 {
			return nil
		}
		w.UpdatedAt = t.now
		if err := t.put(bHooks, w.ID, w); err != nil {
			return err
		}
		out = w.domain()
		return t.audit(auditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: appEnvIDs(a),
			Target: store.Target{Type: "webhook", ID: w.ID}, Metadata: meta})
	})
	return out, err
}

// DeleteWebhook implements store.Webhooks.
func (db *DB) DeleteWebhook(ctx context.Context, ref store.AppRef, id string) error {
	return db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
		if err != nil {
			return err
		}
		w, err := t.webhook(ref, id)
		if err != nil {
			return err
		}
		if err := t.purgeWebhook(w); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventWebhookDeleted, OrgID: a.OrgID, AppID: a.ID, EnvIDs: appEnvIDs(a),
			Target: store.Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"url": w.URL}})
	})
}

// purgeWebhook removes an endpoint, its indexes and all its deliveries.
func (t *txn) purgeWebhook(w *webhookRecord) error {
	if err := t.settle(w.OrgID, w.AppID); err != nil {
		return err
	}
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

// disableWebhook stops deliveries to w: its due deliveries leave the due
// index and wait, pending, until it is enabled again.
func (t *txn) disableWebhook(w *webhookRecord) error {
	if err := t.settle(w.OrgID, w.AppID); err != nil {
		return err
	}
	w.Status = store.WebhookDisabled
	for _, did := range t.all(bDelivHookStatus, key(idb(w.ID), str(store.DeliveryPending))) {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, did, "delivery", d); err != nil {
			return err
		}
		if err := t.undue(d); err != nil {
			return err
		}
	}
	return nil
}

// enableWebhook resumes w: the failure clock restarts and its waiting
// deliveries are due at once.
func (t *txn) enableWebhook(w *webhookRecord) error {
	if err := t.settle(w.OrgID, w.AppID); err != nil {
		return err
	}
	w.Status, w.FailingSince, w.TimedOut = store.WebhookActive, nil, false
	for _, did := range t.all(bDelivHookStatus, key(idb(w.ID), str(store.DeliveryPending))) {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, did, "delivery", d); err != nil {
			return err
		}
		if err := t.undue(d); err != nil {
			return err
		}
		now := t.now
		d.NextAttemptAt = &now
		if err := t.due(d); err != nil {
			return err
		}
		if err := t.put(bDeliveries, d.ID, d); err != nil {
			return err
		}
	}
	return nil
}

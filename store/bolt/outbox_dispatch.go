package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"time"

	"licensectl/store"
)

var _ store.Outbox = (*DB)(nil)

// dueScanLimit bounds the keys one claim walks, so an endpoint with a large
// backlog and its two sends in flight cannot make claiming a scan.
const dueScanLimit = 2000

// DueDeliveries implements store.Outbox. It only reads: what is in flight
// is the dispatcher's to know, so a restart finds every unsent delivery due.
func (db *DB) DueDeliveries(ctx context.Context, now time.Time, limit, perEndpoint int, busy map[string]int, skip map[string]bool) ([]*store.DeliveryJob, error) {
	var out []*store.DeliveryJob
	err := db.view(ctx, func(t *txn) error {
		taken := map[string]int{}
		hooks := map[string]*webhookRecord{}
		end := timeKey(now)
		c := t.tx.Bucket(bDelivDue).Cursor()
		walked := 0
		for k, _ := c.First(); k != nil && len(out) < limit && walked < dueScanLimit; k, _ = c.Next() {
			walked++
			if bytes.Compare(k[:8], end) > 0 {
				break
			}
			id := ids(k[8:])
			if skip[id] {
				continue
			}
			d := new(deliveryRecord)
			if err := t.mustGet(bDeliveries, id, "delivery", d); err != nil {
				return err
			}
			if busy[d.WebhookID]+taken[d.WebhookID] >= perEndpoint {
				continue
			}
			w, ok := hooks[d.WebhookID]
			if !ok {
				w = new(webhookRecord)
				if err := t.mustGet(bHooks, d.WebhookID, "webhook", w); err != nil {
					return err
				}
				hooks[d.WebhookID] = w
			}
			taken[d.WebhookID]++
			out = append(out, &store.DeliveryJob{Delivery: d.domain(), URL: w.URL, Secret: w.Secret})
		}
		return nil
	})
	return out, err
}

// RecordAttempt implements store.Outbox.
func (db *DB) RecordAttempt(ctx context.Context, deliveryID string, a store.Attempt, p store.RetryPolicy) error {
	err := db.update(ctx, func(t *txn) error {
		d := new(deliveryRecord)
		found, err := t.get(bDeliveries, deliveryID, d)
		if err != nil || !found {
			return err // the endpoint was deleted while the send ran
		}
		w := new(webhookRecord)
		if err := t.mustGet(bHooks, d.WebhookID, "webhook", w); err != nil {
			return err
		}
		prev := *d
		if err := t.undue(d); err != nil {
			return err
		}
		at := a.At
		d.Attempts++
		d.ResponseStatus = a.Status
		d.LastAttemptAt = &at
		d.NextAttemptAt = nil
		hookChanged := false
		// A test ping says nothing about the endpoint's health: it neither
		// starts the failure clock nor disables.
		probe := d.Event == store.EventWebhookTest
		if probe {
			if a.OK() {
				d.Status, d.DoneAt = store.DeliveryDelivered, &at
			} else {
				d.Status, d.DoneAt = store.DeliveryFailed, &at
			}
			return t.saveDelivery(&prev, d)
		}
		if a.OK() {
			d.Status, d.DoneAt = store.DeliveryDelivered, &at
			if w.FailingSince != nil {
				w.FailingSince, hookChanged = nil, true
			}
		} else {
			if w.FailingSince == nil {
				w.FailingSince, hookChanged = &at, true
			}
			if d.Attempts <= len(p.Schedule) {
				next := at.Add(p.Schedule[d.Attempts-1])
				d.Status, d.NextAttemptAt = store.DeliveryPending, &next
			} else {
				d.Status, d.DoneAt = store.DeliveryFailed, &at
			}
		}
		if d.Status == store.DeliveryPending && w.Status == store.WebhookActive {
			if err := t.due(d); err != nil {
				return err
			}
		}
		if err := t.saveDelivery(&prev, d); err != nil {
			return err
		}
		gone := a.Status == 410
		stale := !a.OK() && p.DisableAfter > 0 && w.FailingSince != nil && at.Sub(*w.FailingSince) >= p.DisableAfter
		if w.Status == store.WebhookActive && (gone || stale) {
			reason := "failing_since"
			if gone {
				reason = "gone"
			}
			if err := t.disableWebhook(w); err != nil {
				return err
			}
			w.UpdatedAt = t.now
			if err := t.put(bHooks, w.ID, w); err != nil {
				return err
			}
			return t.audit(auditEvent{Event: store.EventWebhookDisabled, OrgID: w.OrgID, AppID: w.AppID, EnvIDs: t.appEnvs(w.AppID),
				Target: store.Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"reason": reason, "response_status": a.Status}})
		}
		if hookChanged {
			return t.put(bHooks, w.ID, w)
		}
		return nil
	})
	return err
}

// appEnvs lists the environments of an application by id; none when it is gone.
func (t *txn) appEnvs(appID string) []string {
	a := new(store.Application)
	if found, err := t.get(bApps, appID, a); err != nil || !found {
		return nil
	}
	return appEnvIDs(a)
}

// TestDelivery implements store.Outbox.
func (db *DB) TestDelivery(ctx context.Context, ref store.AppRef, webhookID string) (*store.DeliveryJob, error) {
	var out *store.DeliveryJob
	err := db.update(ctx, func(t *txn) error {
		w, err := t.webhook(ref, webhookID)
		if err != nil {
			return err
		}
		appID := w.AppID
		body, err := json.Marshal(store.EventPayload{Type: store.EventWebhookTest, Timestamp: t.now.UTC(),
			Data: store.EventData{ApplicationID: &appID, Extra: map[string]any{"webhook_id": w.ID}}})
		if err != nil {
			return err
		}
		if err := t.newDelivery(w, store.EventWebhookTest, body, false); err != nil {
			return err
		}
		last := t.all(bDelivHook, idb(w.ID))
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, last[0], "delivery", d); err != nil {
			return err
		}
		out = &store.DeliveryJob{Delivery: d.domain(), URL: w.URL, Secret: w.Secret}
		return nil
	})
	return out, err
}

// OutboxStats implements store.Outbox.
func (db *DB) OutboxStats(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest time.Time
	err := db.view(ctx, func(t *txn) error {
		n = t.count(bDelivDue, nil)
		if k, _ := t.tx.Bucket(bDelivDue).Cursor().First(); k != nil {
			oldest = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		}
		return nil
	})
	return n, oldest, err
}

// ListDeliveries implements store.Webhooks.
func (db *DB) ListDeliveries(ctx context.Context, ref store.AppRef, webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	switch f.Status {
	case "", store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed:
	default:
		return nil, store.Invalid("status", "status must be pending, delivered or failed")
	}
	var out *store.Page[*store.Delivery]
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		if _, err := t.webhook(ref, webhookID); err != nil {
			return err
		}
		index, prefix := bDelivHook, idb(webhookID)
		if f.Status != "" {
			index, prefix = bDelivHookStatus, key(idb(webhookID), str(f.Status))
		}
		out = &store.Page[*store.Delivery]{Data: []*store.Delivery{}, Total: t.count(index, prefix), Page: f.Page, PerPage: f.PerPage}
		for _, id := range t.page(index, prefix, f.Offset(), f.PerPage) {
			d := new(deliveryRecord)
			if err := t.mustGet(bDeliveries, id, "delivery", d); err != nil {
				return err
			}
			out.Data = append(out.Data, d.domain())
		}
		return nil
	})
	return out, err
}

// RetryDelivery implements store.Webhooks.
func (db *DB) RetryDelivery(ctx context.Context, ref store.AppRef, webhookID, deliveryID string) error {
	return db.update(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		w, err := t.webhook(ref, webhookID)
		if err != nil {
			return err
		}
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, deliveryID, "delivery", d); err != nil {
			return err
		}
		if d.WebhookID != w.ID {
			return store.NotFound("delivery")
		}
		prev := *d
		if err := t.undue(d); err != nil {
			return err
		}
		now := t.now
		d.Status, d.NextAttemptAt, d.DoneAt = store.DeliveryPending, &now, nil
		if err := t.saveDelivery(&prev, d); err != nil {
			return err
		}
		if w.Status != store.WebhookActive {
			return nil // it waits for the endpoint to be enabled again
		}
		t.tx.OnCommit(t.db.wake)
		return t.due(d)
	})
}

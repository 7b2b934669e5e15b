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

// ClaimDue implements store.Outbox.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, c store.Claim) ([]*store.DeliveryJob, error) {
	if err := store.CheckStorable("owner", c.Owner); err != nil {
		return nil, err
	}
	var out []*store.DeliveryJob
	lt := &db.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	err := db.view(ctx, func(t *txn) error {
		out = nil
		perHook, perApp := lt.loads(now, c.Owner)
		end := timeKey(now)
		type cand struct {
			w    *webhookRecord
			seek []byte // where its next due delivery is looked for
		}
		var round []*cand
		for _, id := range t.hooksWithDue(now, lt.next) {
			w := new(webhookRecord)
			if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
				return err
			}
			round = append(round, &cand{w: w, seek: idb(id)})
		}
		// Rounds of one delivery per endpoint until the limit, or until no
		// endpoint can take more.
		dc := t.tx.Bucket(bDelivDueHook).Cursor()
		var last []byte // the last endpoint served: the next claim starts after it
		defer func() {
			if last != nil {
				lt.next = after(last)
			}
		}()
		for len(out) < c.Limit && len(round) > 0 {
			var again []*cand
			for _, h := range round {
				if len(out) == c.Limit {
					break
				}
				if perHook[h.w.ID] >= c.EndpointCap(h.w.TimedOut) || perApp[h.w.AppID] >= c.PerApp {
					continue
				}
				prefix := idb(h.w.ID)
				k, _ := dc.Seek(h.seek)
				if k != nil && bytes.Equal(k, h.seek) {
					k, _ = dc.Next()
				}
				var id string
				for ; k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k[16:24], end) <= 0; k, _ = dc.Next() {
					if l, ok := lt.byID[ids(k[24:])]; !ok || !now.Before(l.until) {
						id = ids(k[24:])
						break
					}
				}
				if id == "" {
					continue
				}
				h.seek = bytes.Clone(k)
				d := new(deliveryRecord)
				if err := t.mustGet(bDeliveries, id, "delivery", d); err != nil {
					return err
				}
				body, err := t.body(d)
				if err != nil {
					return err
				}
				job := d.domain()
				job.Body = body
				lt.byID[id] = lease{owner: c.Owner, hook: h.w.ID, app: h.w.AppID, until: now.Add(c.Lease)}
				perHook[h.w.ID]++
				perApp[h.w.AppID]++
				out = append(out, &store.DeliveryJob{Delivery: job, URL: h.w.URL, Secret: h.w.Secret})
				again = append(again, h)
				last = prefix
			}
			round = again
		}
		return nil
	})
	if err != nil {
		// Nothing is handed out: the leases taken before the failure go too.
		for _, j := range out {
			delete(lt.byID, j.Delivery.ID)
		}
		return nil, err
	}
	return out, nil
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
		st, h, disable := p.Attempted(store.DeliveryState{Status: d.Status, Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt, DoneAt: d.DoneAt},
			store.EndpointHealth{FailingSince: w.FailingSince, TimedOut: w.TimedOut}, d.Event == store.EventWebhookTest, a)
		d.Status, d.Attempts, d.NextAttemptAt, d.DoneAt = st.Status, st.Attempts, st.NextAttemptAt, st.DoneAt
		d.ResponseStatus, d.LastError, d.LastLatency, d.LastAttemptAt = a.Status, a.Error, a.Latency, &at
		hookChanged := w.TimedOut != h.TimedOut || (w.FailingSince == nil) != (h.FailingSince == nil)
		w.FailingSince, w.TimedOut = h.FailingSince, h.TimedOut
		if d.Status == store.DeliveryPending && w.Status == store.WebhookActive {
			if err := t.due(d); err != nil {
				return err
			}
		}
		if err := t.saveDelivery(&prev, d); err != nil {
			return err
		}
		if w.Status == store.WebhookActive && disable != "" {
			if err := t.disableWebhook(w); err != nil {
				return err
			}
			w.UpdatedAt = t.now
			if err := t.put(bHooks, w.ID, w); err != nil {
				return err
			}
			return t.audit(auditEvent{Event: store.EventWebhookDisabled, OrgID: w.OrgID, AppID: w.AppID, EnvIDs: t.appEnvs(w.AppID),
				Target: store.Target{Type: "webhook", ID: w.ID}, Metadata: map[string]any{"reason": disable, "response_status": a.Status}})
		}
		if hookChanged {
			return t.put(bHooks, w.ID, w)
		}
		return nil
	})
	if err == nil {
		db.leases.release(deliveryID)
	}
	return err
}

// ReleaseClaim implements store.Outbox.
func (db *DB) ReleaseClaim(ctx context.Context, deliveryID, owner string) error {
	if err := store.CheckStorable("owner", owner); err != nil {
		return err
	}
	lt := &db.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if l, ok := lt.byID[deliveryID]; ok && l.owner == owner {
		delete(lt.byID, deliveryID)
	}
	return nil
}

// appEnvs lists the environments of an application by id; none when it is gone.
func (t *txn) appEnvs(appID string) []string {
	a := new(store.Application)
	if found, err := t.get(bApps, appID, a); err != nil || !found {
		return nil
	}
	return appEnvIDs(a)
}

// TestDelivery implements store.Outbox. The lease is taken before the
// delivery is written, under the bounds a claim keeps, and given back when
// the write fails.
func (db *DB) TestDelivery(ctx context.Context, ref store.AppRef, webhookID string, now time.Time, c store.Claim) (*store.DeliveryJob, error) {
	if err := store.CheckStorable("owner", c.Owner); err != nil {
		return nil, err
	}
	w := new(webhookRecord)
	err := db.view(ctx, func(t *txn) error {
		var err error
		w, err = t.webhook(ref, webhookID)
		return err
	})
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	lt := &db.leases
	lt.mu.Lock()
	perHook, perApp := lt.loads(now, c.Owner)
	if perHook[w.ID] >= c.EndpointCap(w.TimedOut) || perApp[w.AppID] >= c.PerApp {
		lt.mu.Unlock()
		return nil, store.Errorf(store.ECodeConflict, "the endpoint has %d sends in flight and its application %d, the bounds of webhooks.workers: ping again when they end", perHook[w.ID], perApp[w.AppID])
	}
	lt.byID[id] = lease{owner: c.Owner, hook: w.ID, app: w.AppID, until: now.Add(c.Lease)}
	lt.mu.Unlock()
	var out *store.DeliveryJob
	err = db.update(ctx, func(t *txn) error {
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
		d, err := t.newDelivery(id, w, store.EventWebhookTest, body, t.now, false)
		if err != nil {
			return err
		}
		out = &store.DeliveryJob{Delivery: d.domain(), URL: w.URL, Secret: w.Secret}
		return nil
	})
	if err != nil {
		lt.release(id)
		return nil, err
	}
	return out, nil
}

// OutboxStats implements store.Outbox.
func (db *DB) OutboxStats(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest time.Time
	err := db.view(ctx, func(t *txn) error {
		n = t.count(bDelivDue, nil) + t.count(bOutbox, nil)
		if k, _ := t.tx.Bucket(bDelivDue).Cursor().First(); k != nil {
			oldest = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		}
		if k, _ := t.tx.Bucket(bOutbox).Cursor().First(); k != nil {
			e := new(outboxEvent)
			if err := t.mustGet(bOutbox, ids(k), "outbox event", e); err != nil {
				return err
			}
			if oldest.IsZero() || e.CreatedAt.Before(oldest) {
				oldest = e.CreatedAt
			}
		}
		return nil
	})
	return n, oldest, err
}

// ListDeliveries implements store.Webhooks.
func (db *DB) ListDeliveries(ctx context.Context, ref store.AppRef, webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	if err := f.Check(); err != nil {
		return nil, err
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
		page, next, err := t.pageIDs(index, prefix, f.PageRequest)
		if err != nil {
			return err
		}
		out = &store.Page[*store.Delivery]{Data: []*store.Delivery{}, Total: t.count(index, prefix), Page: f.Page, PerPage: f.PerPage, NextCursor: next}
		for _, id := range page {
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

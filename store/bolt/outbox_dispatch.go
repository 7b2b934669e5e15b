package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Outbox = (*DB)(nil)

// ClaimDue implements store.Outbox: store.Claim.Rounds decides over the
// due index by endpoint, one seek per endpoint and round, and the leases
// go into the in-memory table under its lock, held since they were counted.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, c store.Claim) ([]*store.DeliveryJob, error) {
	if err := store.CheckStorable("owner", c.Owner); err != nil {
		return nil, err
	}
	var out []*store.DeliveryJob
	var picks []store.ClaimPick
	lt := &db.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	err := db.view(ctx, func(t *txn) error {
		out, picks = nil, nil
		perHook, perApp := lt.loads(now, c.Owner)
		var hooks []*store.Webhook
		for _, id := range t.hooksWithDue(now, lt.next) {
			w := new(storedoc.Webhook)
			if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
				return err
			}
			hooks = append(hooks, w.Domain())
		}
		end := timeKey(now)
		dc := t.tx.Bucket(bDelivDueHook).Cursor()
		seek := map[string][]byte{} // where an endpoint's next due delivery is looked for
		var err error
		picks, err = c.Rounds(hooks, perHook, perApp, func(w *store.Webhook) (string, error) {
			prefix := idb(w.ID)
			from, ok := seek[w.ID]
			if !ok {
				from = prefix
			}
			k, _ := dc.Seek(from)
			if k != nil && bytes.Equal(k, from) {
				k, _ = dc.Next()
			}
			for ; k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k[16:24], end) <= 0; k, _ = dc.Next() {
				if l, ok := lt.byID[ids(k[24:])]; !ok || !now.Before(l.until) {
					seek[w.ID] = bytes.Clone(k)
					return ids(k[24:]), nil
				}
			}
			return "", nil
		})
		if err != nil {
			return err
		}
		for _, p := range picks {
			d := new(deliveryRecord)
			if err := t.mustGet(bDeliveries, p.DeliveryID, "delivery", d); err != nil {
				return err
			}
			body, err := t.body(d)
			if err != nil {
				return err
			}
			job := d.domain()
			job.Body = body
			out = append(out, &store.DeliveryJob{Delivery: job, URL: p.Webhook.URL, Secret: p.Webhook.Secret})
		}
		if len(picks) > 0 {
			// The next claim starts after the last endpoint served.
			lt.next = after(idb(picks[len(picks)-1].Webhook.ID))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range picks {
		lt.byID[p.DeliveryID] = lease{owner: c.Owner, hook: p.Webhook.ID, app: p.Webhook.AppID, until: now.Add(c.Lease)}
	}
	return out, nil
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

// QueuedDeliveries implements store.Tx: the due index is ordered by the
// next attempt.
func (t *txn) QueuedDeliveries() (int, time.Time, error) {
	var first time.Time
	if k, _ := t.tx.Bucket(bDelivDue).Cursor().First(); k != nil {
		first = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
	}
	return t.count(bDelivDue, nil), first, nil
}

// UnexpandedEvents implements store.Tx: events are keyed in the order
// they were written.
func (t *txn) UnexpandedEvents() (int, time.Time, error) {
	var first time.Time
	if k, _ := t.tx.Bucket(bOutbox).Cursor().First(); k != nil {
		e := new(outboxEvent)
		if err := t.mustGet(bOutbox, ids(k), "outbox event", e); err != nil {
			return 0, first, err
		}
		first = e.CreatedAt
	}
	return t.count(bOutbox, nil), first, nil
}

// Webhook implements store.Tx.
func (t *txn) Webhook(appID, id string) (*store.Webhook, error) {
	w, err := t.hook(appID, id)
	if err != nil {
		return nil, err
	}
	return w.Domain(), nil
}

// DeliveryPage implements store.Tx: the index of the endpoint's
// deliveries, or of those of one status, newest first, and its count.
func (t *txn) DeliveryPage(webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	index, prefix := bDelivHook, idb(webhookID)
	if f.Status != "" {
		index, prefix = bDelivHookStatus, key(idb(webhookID), str(f.Status))
	}
	page, next, err := t.pageIDs(index, prefix, f.PageRequest)
	if err != nil {
		return nil, err
	}
	out := &store.Page[*store.Delivery]{Data: []*store.Delivery{}, Total: t.count(index, prefix), Page: f.Page, PerPage: f.PerPage, NextCursor: next}
	for _, id := range page {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, id, "delivery", d); err != nil {
			return nil, err
		}
		out.Data = append(out.Data, d.domain())
	}
	return out, nil
}

package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
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
				if c.Full(h.w.TimedOut, perHook[h.w.ID], perApp[h.w.AppID]) {
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

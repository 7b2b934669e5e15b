package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.AuditRetention = (*DB)(nil)

// minRetention is the youngest an entry can be and still be removed: no tier
// keeps its log for less than a day, so the walk stops there.
const minRetention = 24 * time.Hour

// PruneAudit implements store.AuditRetention. Audit ids are UUIDv7, so the
// audit bucket is in time order and the walk starts at the oldest; finished
// deliveries are walked in the order they finished. One call is one short
// write transaction that looks at a bounded number of keys.
func (db *DB) PruneAudit(ctx context.Context, batch int) (int, error) {
	removed := 0
	err := db.update(ctx, func(t *txn) error {
		removed = 0
		youngest := t.now.Add(-minRetention)
		days := map[string]int64{}
		var derr error
		expired := func(orgID string, at time.Time) bool {
			d, ok := days[orgID]
			if !ok {
				rec, err := t.subscription(orgID)
				if err != nil {
					derr = err
					return false
				}
				d = rec.State().Subscription(orgID, db.BillingPolicy()).Plan.AuditLogRetentionDays
				days[orgID] = d
			}
			return d >= 0 && at.Before(t.now.AddDate(0, 0, -int(d)))
		}
		var entries []*store.AuditEntry
		c := t.tx.Bucket(bAudit).Cursor()
		seen := 0
		for k, v := c.First(); k != nil && seen < 4*batch && len(entries) < batch; k, v = c.Next() {
			seen++
			e := new(store.AuditEntry)
			if err := decode(bAudit, k, v, e); err != nil {
				return err
			}
			if e.CreatedAt.After(youngest) {
				break
			}
			if expired(e.OrgID, e.CreatedAt) {
				entries = append(entries, e)
			}
		}
		if derr != nil {
			return derr
		}
		for _, e := range entries {
			if err := t.dropAudit(e); err != nil {
				return err
			}
		}
		var done []*deliveryRecord
		dc := t.tx.Bucket(bDelivDone).Cursor()
		for k, _ := dc.First(); k != nil && len(done) < batch; k, _ = dc.Next() {
			d := new(deliveryRecord)
			if err := t.mustGet(bDeliveries, ids(k[8:]), "delivery", d); err != nil {
				return err
			}
			if d.DoneAt.After(youngest) {
				break
			}
			if expired(d.OrgID, *d.DoneAt) {
				done = append(done, d)
			}
		}
		if derr != nil {
			return derr
		}
		for _, d := range done {
			if err := t.dropDelivery(d); err != nil {
				return err
			}
		}
		removed = len(entries) + len(done)
		return nil
	})
	return removed, err
}

// dropAudit removes an entry and its index keys, uncounting them.
func (t *txn) dropAudit(e *store.AuditEntry) error {
	ts := timeKey(e.CreatedAt)
	var envs []string
	if e.AppID != "" {
		envs = t.appEnvs(e.AppID)
	}
	if len(envs) == 0 {
		if err := t.unindexSorted(bAuditOrg, idb(e.OrgID), ts, e.ID); err != nil {
			return err
		}
		if err := t.unindexSorted(bAuditOrgEvent, key(idb(e.OrgID), str(e.Event)), ts, e.ID); err != nil {
			return err
		}
	}
	for _, env := range envs {
		if err := t.unindexSorted(bAuditEnv, idb(env), ts, e.ID); err != nil {
			return err
		}
		if err := t.unindexSorted(bAuditEvent, key(idb(env), str(e.Event)), ts, e.ID); err != nil {
			return err
		}
	}
	if err := t.unindexAuditTarget(e); err != nil {
		return err
	}
	return t.del(bAudit, e.ID)
}

// unindexSorted removes "prefix|sort|id" from an index, uncounting it.
func (t *txn) unindexSorted(bucket, prefix, sort []byte, id string) error {
	b := t.tx.Bucket(bucket)
	k := key(prefix, sort, idb(id))
	if b.Get(k) == nil {
		return nil
	}
	if err := b.Delete(k); err != nil {
		return err
	}
	return t.addCount(bucket, prefix, -1)
}

// appEnvs lists the environments of an application by id; none when it is gone.
func (t *txn) appEnvs(appID string) []string {
	a := new(store.Application)
	if found, err := t.get(bApps, appID, a); err != nil || !found {
		return nil
	}
	return a.EnvIDs()
}

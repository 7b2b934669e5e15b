package bolt

import (
	"licensectl/store"
	"licensectl/store/storedoc"
)

// subscriptionPlans returns the plan key of an organization's stored
// subscription, "" when none is stored, reading each once.
func (t *txn) subscriptionPlans() func(orgID string) (string, error) {
	plans := map[string]string{}
	return func(orgID string) (string, error) {
		if p, ok := plans[orgID]; ok {
			return p, nil
		}
		rec := new(storedoc.Subscription)
		if _, err := t.get(bSubscriptions, orgID, rec); err != nil {
			return "", err
		}
		plans[orgID] = rec.Plan
		return rec.Plan, nil
	}
}

// DeleteExpiredAudit implements store.Tx. Audit ids are UUIDv7, so the
// audit bucket is in time order and the walk starts at the oldest entry
// (or at from, an entry's id); it looks at no more than 4*limit entries, so
// that a long run of entries kept for ever costs one transaction a bounded
// read, and returns the id of the next entry when it stops there.
func (t *txn) DeleteExpiredAudit(c *store.RetentionCutoffs, from string, limit int) (int, string, error) {
	plan := t.subscriptionPlans()
	var entries []*store.AuditEntry
	cur := t.tx.Bucket(bAudit).Cursor()
	k, v := cur.First()
	if from != "" {
		k, v = cur.Seek(idb(from))
	}
	next := ""
	for seen := 0; k != nil && len(entries) < limit; k, v = cur.Next() {
		if seen == 4*limit {
			next = ids(k)
			break
		}
		seen++
		e := new(store.AuditEntry)
		if err := decode(bAudit, k, v, e); err != nil {
			return 0, "", err
		}
		if e.CreatedAt.After(c.Youngest) {
			break
		}
		p, err := plan(e.OrgID)
		if err != nil {
			return 0, "", err
		}
		if c.Expired(p, e.CreatedAt) {
			entries = append(entries, e)
		}
	}
	for _, e := range entries {
		if err := t.dropAudit(e); err != nil {
			return 0, "", err
		}
	}
	return len(entries), next, nil
}

// DeleteExpiredDeliveries implements store.Tx, walking the finished
// deliveries in the order they finished.
func (t *txn) DeleteExpiredDeliveries(c *store.RetentionCutoffs, limit int) (int, error) {
	plan := t.subscriptionPlans()
	var done []*deliveryRecord
	cur := t.tx.Bucket(bDelivDone).Cursor()
	for k, _ := cur.First(); k != nil && len(done) < limit; k, _ = cur.Next() {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, ids(k[8:]), "delivery", d); err != nil {
			return 0, err
		}
		if d.DoneAt.After(c.Youngest) {
			break
		}
		p, err := plan(d.OrgID)
		if err != nil {
			return 0, err
		}
		if c.Expired(p, *d.DoneAt) {
			done = append(done, d)
		}
	}
	for _, d := range done {
		if err := t.dropDelivery(d); err != nil {
			return 0, err
		}
	}
	return len(done), nil
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

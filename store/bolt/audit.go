package bolt

import (
	"bytes"
	"context"
	"math"
	"time"

	"licensectl/store"
)

// auditEvent is what a change records about itself.
type auditEvent = store.AuditEvent

// audit writes one audit entry for the transaction's change, naming the actor
// of the request context. Entries are indexed by the transaction's clock
// reading, so time filters agree with created_at even under a test clock.
func (t *txn) audit(ev auditEvent) error {
	a := store.ActorFrom(t.ctx)
	e := store.AuditEntry{
		ID:        store.NewID(),
		OrgID:     ev.OrgID,
		AppID:     ev.AppID,
		Event:     ev.Event,
		Actor:     a,
		Target:    ev.Target,
		IP:        a.IP,
		UserAgent: a.UserAgent,
		Metadata:  ev.Metadata,
		CreatedAt: t.now,
	}
	if len(ev.EnvIDs) == 1 {
		e.EnvID = ev.EnvIDs[0]
	}
	if err := t.put(bAudit, e.ID, &e); err != nil {
		return err
	}
	ts := timeKey(t.now)
	if len(ev.EnvIDs) == 0 {
		if err := t.indexSorted(bAuditOrg, idb(ev.OrgID), ts, e.ID); err != nil {
			return err
		}
		if err := t.indexSorted(bAuditOrgEvent, key(idb(ev.OrgID), str(ev.Event)), ts, e.ID); err != nil {
			return err
		}
	}
	for _, env := range ev.EnvIDs {
		if err := t.indexSorted(bAuditEnv, idb(env), ts, e.ID); err != nil {
			return err
		}
		if err := t.indexSorted(bAuditEvent, key(idb(env), str(ev.Event)), ts, e.ID); err != nil {
			return err
		}
	}
	if err := t.indexAuditTarget(&e); err != nil {
		return err
	}
	return t.enqueue(ev, &e)
}

// targetKey is how a target is keyed in audit_by_target: its 16 bytes
// when it is an id, else its text.
func targetKey(id string) []byte {
	if b := idb(id); b != nil {
		return b
	}
	return str(id)
}

// auditTargetKey is e's key in audit_by_target: target|time|entry. One key
// per entry, whichever logs list it, and no kept count: a target's history
// is short, and the generated license's budget on disk is not
// (docs/performance.md). Readers check which log lists an entry in that
// log's own index.
func auditTargetKey(e *store.AuditEntry) []byte {
	return key(targetKey(e.Target.ID), timeKey(e.CreatedAt), idb(e.ID))
}

// indexAuditTarget lists e under its target. An entry with no target id (a
// refused runtime request) has no history to join.
func (t *txn) indexAuditTarget(e *store.AuditEntry) error {
	if e.Target.ID == "" {
		return nil
	}
	return t.appendBucket(bAuditTarget).Put(auditTargetKey(e), []byte{})
}

// unindexAuditTarget is indexAuditTarget's undo, for retention.
func (t *txn) unindexAuditTarget(e *store.AuditEntry) error {
	if e.Target.ID == "" {
		return nil
	}
	return t.tx.Bucket(bAuditTarget).Delete(auditTargetKey(e))
}

// listedIn keeps the audit_by_target keys (…|time|entry) of entries that the
// log index lists under owner.
func (t *txn) listedIn(log, owner []byte) func(k []byte) bool {
	b := t.tx.Bucket(log)
	return func(k []byte) bool {
		return b.Get(key(owner, k[len(k)-24:])) != nil
	}
}

// auditIndex picks the index and prefix a filter reads in one log: by
// event, or the whole log (auditLogPage reads by target itself).
func auditIndex(f store.AuditFilter, owner []byte, all, byEvent []byte) ([]byte, []byte) {
	if f.Event != "" {
		return byEvent, key(owner, str(f.Event))
	}
	return all, owner
}

// auditLogPage pages one log (owner in the log index all, with its by-event
// index byEvent) under the filter.
func (t *txn) auditLogPage(f store.AuditFilter, owner, all, byEvent []byte) (*store.Page[*store.AuditEntry], error) {
	if f.TargetID != "" {
		return t.auditRange(bAuditTarget, targetKey(f.TargetID), f, t.listedIn(all, owner))
	}
	index, prefix := auditIndex(f, owner, all, byEvent)
	if f.From == nil && f.To == nil {
		return listPage[store.AuditEntry](t, index, prefix, bAudit, f.PageRequest)
	}
	return t.auditRange(index, prefix, f, nil)
}

// timeKey is a sortable 8-byte form of a time.
// Times outside what nanoseconds since 1970 hold in an int64 (before 1970,
// after 2262) sort at the ends: UnixNano is undefined there, and a range
// bound such as to=2999-01-01 must still mean "after everything".
func timeKey(ts time.Time) []byte {
	switch {
	case ts.Before(time.Unix(0, 0)):
		return u64(0)
	case ts.After(time.Unix(0, math.MaxInt64)):
		return u64(math.MaxInt64)
	}
	return u64(uint64(ts.UnixNano()))
}

// ListAudit implements store.AuditLog. Without a time range the page costs
// offset+per_page key reads and total is a kept count; with a range, both
// walk only the keys inside the range.
func (db *DB) ListAudit(ctx context.Context, s store.Scope, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *store.Page[*store.AuditEntry]
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		out, err = t.auditLogPage(f, idb(env.ID), bAuditEnv, bAuditEvent)
		return err
	})
	return out, err
}

// ListOrgAudit implements store.OrgAuditLog.
func (db *DB) ListOrgAudit(ctx context.Context, orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *store.Page[*store.AuditEntry]
	err := db.view(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, orgID, "organization", new(store.Organization)); err != nil {
			return err
		}
		var err error
		out, err = t.auditLogPage(f, idb(orgID), bAuditOrg, bAuditOrgEvent)
		return err
	})
	return out, err
}

// auditRange pages the entries whose time falls in [From, To) and, when
// keep is set, whose key it keeps.
func (t *txn) auditRange(index, prefix []byte, f store.AuditFilter, keep func(k []byte) bool) (*store.Page[*store.AuditEntry], error) {
	lo := key(prefix, u64(0))
	if f.From != nil {
		lo = key(prefix, timeKey(*f.From))
	}
	var hi []byte
	if f.To != nil {
		hi = key(prefix, timeKey(*f.To))
	}
	var matched []string
	c := t.tx.Bucket(index).Cursor()
	for k, _ := c.Seek(lo); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if hi != nil && bytes.Compare(k[:len(hi)], hi) >= 0 {
			break
		}
		if keep != nil && !keep(k) {
			continue
		}
		matched = append(matched, ids(k[len(k)-16:]))
	}
	from, err := f.Start()
	if err != nil {
		return nil, err
	}
	out := &store.Page[*store.AuditEntry]{Data: []*store.AuditEntry{}, Total: len(matched), Page: f.Page, PerPage: f.PerPage}
	if end := from + f.PerPage; end < len(matched) {
		out.NextCursor = store.OffsetCursor(end)
	}
	for i := len(matched) - 1 - from; i >= 0 && len(out.Data) < f.PerPage; i-- {
		e := new(store.AuditEntry)
		if err := t.mustGet(bAudit, matched[i], "audit entry", e); err != nil {
			return nil, err
		}
		out.Data = append(out.Data, e)
	}
	return out, nil
}

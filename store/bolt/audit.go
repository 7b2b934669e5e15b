package bolt

import (
	"bytes"
	"context"
	"time"

	"licensectl/store"
)

// auditEvent is what a change records about itself.
type auditEvent struct {
	Event    string
	OrgID    string
	AppID    string
	EnvIDs   []string // environments whose log lists the entry; none for organization-level events
	Target   store.Target
	Metadata map[string]any
}

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
	if err := t.indexAuditTarget(&e, ev.EnvIDs); err != nil {
		return err
	}
	return t.enqueue(ev, &e)
}

// auditLogs are the owners whose log lists an entry: its environments, or
// its organization when it belongs to none.
func auditLogs(orgID string, envIDs []string) []string {
	if len(envIDs) == 0 {
		return []string{orgID}
	}
	return envIDs
}

// auditTargetPrefix is the prefix of one target's entries in one log.
func auditTargetPrefix(owner, targetID string) []byte {
	return key(idb(owner), str(targetID))
}

// indexAuditTarget lists e under its target in each log that lists it. An
// entry with no target id (a refused runtime request) has no history to
// join.
func (t *txn) indexAuditTarget(e *store.AuditEntry, envIDs []string) error {
	if e.Target.ID == "" {
		return nil
	}
	for _, owner := range auditLogs(e.OrgID, envIDs) {
		if err := t.indexSorted(bAuditTarget, auditTargetPrefix(owner, e.Target.ID), timeKey(e.CreatedAt), e.ID); err != nil {
			return err
		}
	}
	return nil
}

// unindexAuditTarget is indexAuditTarget's undo, for retention.
func (t *txn) unindexAuditTarget(e *store.AuditEntry, envIDs []string) error {
	if e.Target.ID == "" {
		return nil
	}
	for _, owner := range auditLogs(e.OrgID, envIDs) {
		if err := t.unindexSorted(bAuditTarget, auditTargetPrefix(owner, e.Target.ID), timeKey(e.CreatedAt), e.ID); err != nil {
			return err
		}
	}
	return nil
}

// auditIndex picks the index and prefix a filter reads in one log: by
// target, by event, or the whole log. Normalize has refused both filters at
// once.
func auditIndex(f store.AuditFilter, owner []byte, all, byEvent []byte) ([]byte, []byte) {
	switch {
	case f.TargetID != "":
		return bAuditTarget, key(owner, str(f.TargetID))
	case f.Event != "":
		return byEvent, key(owner, str(f.Event))
	}
	return all, owner
}

// timeKey is a sortable 8-byte form of a time.
func timeKey(ts time.Time) []byte {
	n := ts.UnixNano()
	if n < 0 {
		n = 0
	}
	return u64(uint64(n))
}

// appEnvIDs lists an application's environments; application-level events
// (plans, entitlements, secrets) appear in the log of both.
func appEnvIDs(a *store.Application) []string {
	out := make([]string, 0, len(a.Environments))
	for _, e := range a.Environments {
		out = append(out, e.ID)
	}
	return out
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
		index, prefix := auditIndex(f, idb(env.ID), bAuditEnv, bAuditEvent)
		out, err = t.auditPage(index, prefix, f)
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
		index, prefix := auditIndex(f, idb(orgID), bAuditOrg, bAuditOrgEvent)
		var err error
		out, err = t.auditPage(index, prefix, f)
		return err
	})
	return out, err
}

// auditPage pages an audit index, by kept count or within the time range.
func (t *txn) auditPage(index, prefix []byte, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	if f.From == nil && f.To == nil {
		return listPage[store.AuditEntry](t, index, prefix, bAudit, f.PageRequest)
	}
	return t.auditRange(index, prefix, f)
}

// auditRange pages the entries whose time falls in [From, To).
func (t *txn) auditRange(index, prefix []byte, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
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
		matched = append(matched, ids(k[len(k)-16:]))
	}
	out := &store.Page[*store.AuditEntry]{Data: []*store.AuditEntry{}, Total: len(matched), Page: f.Page, PerPage: f.PerPage}
	for i := len(matched) - 1 - f.Offset(); i >= 0 && len(out.Data) < f.PerPage; i-- {
		e := new(store.AuditEntry)
		if err := t.mustGet(bAudit, matched[i], "audit entry", e); err != nil {
			return nil, err
		}
		out.Data = append(out.Data, e)
	}
	return out, nil
}

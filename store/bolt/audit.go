package bolt

import (
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

package bolt

import (
	"bytes"

	"licensectl/store"
)

var (
	_ store.AuditLog    = (*DB)(nil)
	_ store.OrgAuditLog = (*DB)(nil)
)

// EnvAuditPage implements store.Tx. Without a time range the page costs
// offset+per_page key reads and total is a kept count; with a range, both
// walk only the keys inside the range.
func (t *txn) EnvAuditPage(envID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return t.auditLogPage(f, idb(envID), bAuditEnv, bAuditEvent)
}

// OrgAuditPage implements store.Tx.
func (t *txn) OrgAuditPage(orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return t.auditLogPage(f, idb(orgID), bAuditOrg, bAuditOrgEvent)
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

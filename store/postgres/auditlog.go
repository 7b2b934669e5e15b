package postgres

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"licensectl/store"
)

var (
	_ store.AuditLog    = (*DB)(nil)
	_ store.OrgAuditLog = (*DB)(nil)
)

// EnvAuditPage implements store.Tx: the entries the environment's log
// lists (its own and its application's), over the index of env_ids.
func (t *txn) EnvAuditPage(envID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return t.auditLogPage(f, envID, auditEnvLog(f)...)
}

// OrgAuditPage implements store.Tx: the entries of no environment, over
// the organization-level index.
func (t *txn) OrgAuditPage(orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return t.auditLogPage(f, orgID, `org_id = $1 AND cardinality(env_ids) = 0`)
}

// auditCursorLen is the length of an audit cursor's key: the last entry's
// time (µs since 1970) and id, then the tag of its list.
const auditCursorLen = 8 + 16 + 4

// auditEnvLog is an environment's log (of $1) as disjoint parts, each
// walked in order over an index of migrations/0020_catalog.sql: the
// entries whose first environment it is, and those of both environments
// (application-level events) whose second it is. A history (target_id) is
// short and read over its own index instead.
func auditEnvLog(f store.AuditFilter) []string {
	if f.TargetID != "" {
		return []string{`env_ids @> ARRAY[$1::uuid]`}
	}
	return []string{`env_ids[1] = $1`, `env_ids[2] = $1 AND cardinality(env_ids) = 2`}
}

// auditLogPage pages one log under the filter, newest first by
// (created_at, id) as bbolt orders its audit keys (the transaction's clock
// reading, then the id). The log is the union of parts, disjoint
// conditions on $1 = owner; each part is read in order and only as far as
// the page needs, and the parts merged. Every filter pages by keyset: a
// cursor names the last entry shown and resumes just older than it, so
// page 10,000 of a log, a history or a time range costs what page 1 does;
// a page number skips rows.
func (t *txn) auditLogPage(f store.AuditFilter, owner string, parts ...string) (*store.Page[*store.AuditEntry], error) {
	where, args := "", []any{owner}
	add := func(cond string, v any) {
		args = append(args, v)
		where += " AND " + cond + " $" + strconv.Itoa(len(args))
	}
	switch {
	case f.TargetID != "":
		add("target_id =", f.TargetID)
	case f.Event != "":
		add("event =", f.Event)
	}
	// bbolt compares nanoseconds; stored times are whole microseconds, so a
	// bound rounded up to the next microsecond keeps exactly the same
	// entries on both sides of it. A bound past what timestamptz holds
	// bounds nothing.
	if f.From != nil && f.From.After(auditMinTime) {
		add("created_at >=", auditCeilMicro(*f.From))
	}
	if f.To != nil && f.To.Before(auditMaxTime) {
		add("created_at <", auditCeilMicro(*f.To))
	}
	tag := auditListTag(strings.Join(parts, " | ")+where, args)
	after, err := f.CursorKey()
	if err != nil {
		return nil, err
	}
	counts := make([]string, len(parts))
	for i, part := range parts {
		counts[i] = `(SELECT count(*) FROM audit WHERE ` + part + where + `)`
	}
	total, err := t.count(`SELECT `+strings.Join(counts, " + "), args...)
	if err != nil {
		return nil, err
	}
	qargs, offset := args, 0
	if after != nil {
		if len(after) != auditCursorLen || binary.BigEndian.Uint32(after[24:]) != tag {
			return nil, store.Invalid("cursor", "cursor is not one this list answered with")
		}
		at := time.UnixMicro(int64(binary.BigEndian.Uint64(after[:8])))
		qargs = append(append([]any(nil), args...), at, uuid.UUID(after[8:24]).String())
		where += ` AND (created_at, id) < ($` + strconv.Itoa(len(qargs)-1) + `, $` + strconv.Itoa(len(qargs)) + `)`
	} else {
		offset = f.Offset()
	}
	qargs = append(qargs, f.PerPage+1, offset)
	limit, skip := `$`+strconv.Itoa(len(qargs)-1)+`::bigint`, `$`+strconv.Itoa(len(qargs))+`::bigint`
	const order = ` ORDER BY created_at DESC, id DESC`
	selects := make([]string, len(parts))
	for i, part := range parts {
		selects[i] = `(SELECT id, created_at, ip, user_agent, doc FROM audit WHERE ` + part + where + order + ` LIMIT ` + limit + ` + ` + skip + `)`
	}
	q := `SELECT * FROM (` + strings.Join(selects, " UNION ALL ") + `) log` + order + ` LIMIT ` + limit + ` OFFSET ` + skip
	rows, err := t.tx.Query(t.ctx, q, qargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &store.Page[*store.AuditEntry]{Data: []*store.AuditEntry{}, Total: total, Page: f.Page, PerPage: f.PerPage}
	var lastID uuid.UUID
	var lastAt time.Time
	for rows.Next() {
		var id uuid.UUID
		var at time.Time
		var ip, ua string
		var raw []byte
		if err := rows.Scan(&id, &at, &ip, &ua, &raw); err != nil {
			return nil, err
		}
		if len(out.Data) == f.PerPage {
			k := binary.BigEndian.AppendUint64(nil, uint64(lastAt.UnixMicro()))
			k = append(k, lastID[:]...)
			out.NextCursor = store.KeyCursor(binary.BigEndian.AppendUint32(k, tag))
			break
		}
		e, err := decodeAudit(raw, ip, ua)
		if err != nil {
			return nil, err
		}
		out.Data = append(out.Data, e)
		lastID, lastAt = id, at
	}
	return out, rows.Err()
}

// auditMinTime and auditMaxTime are inside timestamptz's range (4713 BC to
// 294276 AD) and beyond any time the store writes.
var (
	auditMinTime = time.Date(-4000, 1, 1, 0, 0, 0, 0, time.UTC)
	auditMaxTime = time.Date(200000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// auditCeilMicro rounds ts up to a whole microsecond.
func auditCeilMicro(ts time.Time) time.Time {
	if r := ts.Truncate(time.Microsecond); !r.Equal(ts) {
		return r.Add(time.Microsecond)
	}
	return ts
}

// auditListTag tells audit lists apart in their cursors: the log, its owner
// and the filter, times by their instant (a time's text would carry its
// zone and monotonic reading).
func auditListTag(where string, args []any) uint32 {
	h := fnv.New32a()
	h.Write([]byte(where))
	for _, a := range args {
		h.Write([]byte{0})
		switch v := a.(type) {
		case time.Time:
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(v.UnixMicro())))
		case string:
			h.Write([]byte(v))
		}
	}
	return h.Sum32()
}

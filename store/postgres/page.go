package postgres

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"licensectl/store"
)

// listPage pages the docs of table that match where (a condition on $1…$n
// of args), newest first by id. A cursor resumes after the id it names
// (keyset: page 10,000 costs what page 1 does); a page number skips rows.
// The cursor also carries a hash of the list it belongs to, so one of
// another list or filter is refused rather than read as a position here.
func listPage[T any](t *txn, table, where string, args []any, p store.PageRequest) (*store.Page[*T], error) {
	after, err := p.CursorKey()
	if err != nil {
		return nil, err
	}
	tag := listTag(table, where, args)
	q := `SELECT id, doc FROM ` + table + ` WHERE ` + where
	qargs := append([]any(nil), args...)
	offset := 0
	if after != nil {
		if len(after) != 20 || binary.BigEndian.Uint32(after[16:]) != tag {
			return nil, store.Invalid("cursor", "cursor is not one this list answered with")
		}
		qargs = append(qargs, uuid.UUID(after[:16]).String())
		q += ` AND id < $` + strconv.Itoa(len(qargs))
	} else {
		offset = p.Offset()
	}
	qargs = append(qargs, p.PerPage+1, offset)
	q += ` ORDER BY id DESC LIMIT $` + strconv.Itoa(len(qargs)-1) + ` OFFSET $` + strconv.Itoa(len(qargs))
	total, err := t.count(`SELECT count(*) FROM `+table+` WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(t.ctx, q, qargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &store.Page[*T]{Data: []*T{}, Total: total, Page: p.Page, PerPage: p.PerPage}
	var last uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if len(out.Data) == p.PerPage {
			out.NextCursor = store.KeyCursor(binary.BigEndian.AppendUint32(last[:], tag))
			break
		}
		v, err := decode[T](raw)
		if err != nil {
			return nil, err
		}
		out.Data = append(out.Data, v)
		last = id
	}
	return out, rows.Err()
}

// listTag tells lists apart in their cursors.
func listTag(table, where string, args []any) uint32 {
	h := fnv.New32a()
	h.Write([]byte(table + "\x00" + where))
	for _, a := range args {
		h.Write([]byte("\x00"))
		switch v := a.(type) {
		case string:
			h.Write([]byte(v))
		case []string:
			h.Write([]byte(strings.Join(v, "\x01")))
		default:
			h.Write([]byte(fmt.Sprint(v)))
		}
	}
	return h.Sum32()
}

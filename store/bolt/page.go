package bolt

import (
	"bytes"

	"licensectl/store"
)

// listPage loads one page of records under prefix of an index.
func listPage[T any](t *txn, index, prefix, records []byte, p store.PageRequest) (*store.Page[*T], error) {
	ids, next, err := t.pageIDs(index, prefix, p)
	if err != nil {
		return nil, err
	}
	out := &store.Page[*T]{Data: []*T{}, Total: t.count(index, prefix), Page: p.Page, PerPage: p.PerPage, NextCursor: next}
	data, err := loadRecords[T](t, index, records, ids)
	if err != nil {
		return nil, err
	}
	if data != nil {
		out.Data = data
	}
	return out, nil
}

// envPage pages the records of an environment, newest first: every one
// through the index all, or those of status through byStatus.
func envPage[T any](t *txn, all, byStatus, records []byte, envID, status string, p store.PageRequest) (*store.Page[*T], error) {
	index, prefix := all, idb(envID)
	if status != "" {
		index, prefix = byStatus, key(idb(envID), str(status))
	}
	return listPage[T](t, index, prefix, records, p)
}

// page returns up to limit ids under prefix, newest first, after skipping
// offset. It walks keys only: the cost is offset+limit, not the collection.
func (t *txn) page(bucket, prefix []byte, offset, limit int) []string {
	var out []string
	c := t.tx.Bucket(bucket).Cursor()
	k, _ := seekLast(c, prefix)
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
		if offset > 0 {
			offset--
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, ids(k[len(k)-16:]))
	}
	return out
}

// pageIDs returns the ids of one page under prefix of an index, newest
// first, and the cursor of the page after it ("" when none follows). A
// cursor seeks straight to its key, so page 10,000 costs what page 1 does;
// a page number still walks past the keys before it. The key a cursor names
// may be gone since: the walk resumes at the key just older than it.
func (t *txn) pageIDs(index, prefix []byte, p store.PageRequest) ([]string, string, error) {
	after, err := p.CursorKey()
	if err != nil {
		return nil, "", err
	}
	c := t.tx.Bucket(index).Cursor()
	var k []byte
	offset := 0
	if after == nil {
		k, _ = seekLast(c, prefix)
		offset = p.Offset()
	} else {
		// A cursor of another list (another filter or scope) is refused
		// rather than read as a position in this one.
		if len(after) <= len(prefix) || !bytes.HasPrefix(after, prefix) {
			return nil, "", store.Invalid("cursor", "cursor is not one this list answered with")
		}
		if k, _ = c.Seek(after); k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
	}
	var out []string
	var last []byte
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
		if offset > 0 {
			offset--
			continue
		}
		if len(out) == p.PerPage {
			return out, store.KeyCursor(last), nil
		}
		out = append(out, ids(k[len(k)-16:]))
		last = k
	}
	return out, "", nil
}

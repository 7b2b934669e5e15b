package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// txn is one transaction with the request's context and one clock reading, so
// that every timestamp written by a change is the same.
type txn struct {
	tx  *bolt.Tx
	ctx context.Context
	now time.Time
	db  *DB
	// hooks caches the endpoints per scope for the outbox (scopeHooks);
	// every change to an endpoint resets it.
	hooks map[string][]*store.Webhook
	// queued: an outbox event was written, and the commit wakes the dispatcher.
	queued bool
	// undo takes back, when the transaction does not commit, what it did
	// outside the file (a ping's lease in the in-memory lease table).
	undo []func()
}

// update runs fn in one read-write transaction: the change, its indexes,
// counts and audit entry commit together or not at all.
func (db *DB) update(ctx context.Context, fn func(t *txn) error) error {
	if err := db.writer.acquire(store.WriteWaitSince(ctx)); err != nil {
		return err
	}
	defer db.writer.release()
	var t *txn
	err := db.commitErr(db.bolt.Update(func(tx *bolt.Tx) error {
		t = &txn{tx: tx, ctx: ctx, now: db.Clock(), db: db}
		return fn(t)
	}))
	if err != nil && t != nil {
		for _, undo := range t.undo {
			undo()
		}
	}
	return err
}

// Hot runtime writes use groupCommit (runtime_commit.go), an adaptive group
// commit with DB.Batch's contract but no batching timer.

// view runs fn in a read-only transaction.
func (db *DB) view(ctx context.Context, fn func(t *txn) error) error {
	if db.stale != nil {
		return db.stale
	}
	return db.bolt.View(func(tx *bolt.Tx) error {
		return fn(&txn{tx: tx, ctx: ctx, now: db.Clock(), db: db})
	})
}

// idb returns the 16 raw bytes of a UUID string, or nil when it is not one;
// a nil key finds nothing, so a malformed id reads as not found.
func idb(id string) []byte {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return nil
	}
	return u[:]
}

// ids turns 16 raw bytes back into the UUID string.
func ids(b []byte) string {
	var u uuid.UUID
	copy(u[:], b)
	return u.String()
}

// key joins parts into one composite key.
func key(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// str is a string key part terminated by 0x00 so that a shorter value is
// never a prefix of a longer one.
func str(s string) []byte { return append([]byte(s), 0) }

// get decodes the record id of bucket into v; it reports false when absent.
func (t *txn) get(bucket []byte, id string, v any) (bool, error) {
	k := idb(id)
	if k == nil {
		return false, nil
	}
	raw := t.tx.Bucket(bucket).Get(k)
	if raw == nil {
		return false, nil
	}
	// A record that fails to decode is corruption: fail loudly, never skip.
	return true, decode(bucket, k, raw, v)
}

// mustGet is get that turns absence into not_found for kind.
func (t *txn) mustGet(bucket []byte, id, kind string, v any) error {
	ok, err := t.get(bucket, id, v)
	if err != nil {
		return err
	}
	if !ok {
		return store.NotFound(kind)
	}
	return nil
}

// put encodes v as the record id of bucket.
func (t *txn) put(bucket []byte, id string, v any) error {
	k := idb(id)
	if k == nil {
		return fmt.Errorf("put %s: malformed id %q", bucket, id)
	}
	raw, err := encodeRecord(v)
	if err != nil {
		return fmt.Errorf("encode %s/%s: %w", bucket, id, err)
	}
	return t.appendBucket(bucket).Put(k, raw)
}

// appendFill is the page fill for buckets whose keys mostly arrive in
// ascending order (UUIDv7 ids, prefix|id indexes): bbolt's default of 50%
// would leave every page it splits half empty and double the file.
const appendFill = 0.9

// appendBucket returns bucket set up for mostly ascending inserts.
func (t *txn) appendBucket(name []byte) *bolt.Bucket {
	b := t.tx.Bucket(name)
	b.FillPercent = appendFill
	return b
}

// del removes the record id of bucket.
func (t *txn) del(bucket []byte, id string) error {
	return t.tx.Bucket(bucket).Delete(idb(id))
}

// lookup reads a unique index: the id stored under k, or "".
func (t *txn) lookup(bucket, k []byte) string {
	v := t.tx.Bucket(bucket).Get(k)
	if v == nil {
		return ""
	}
	if len(v) == 16 {
		return ids(v)
	}
	return string(v)
}

// setUnique stores id under k in a unique index.
func (t *txn) setUnique(bucket, k []byte, id string) error {
	return t.tx.Bucket(bucket).Put(k, idb(id))
}

// delUnique removes k from a unique index.
func (t *txn) delUnique(bucket, k []byte) error {
	return t.tx.Bucket(bucket).Delete(k)
}

func countKey(bucket, prefix []byte) []byte { return key(bucket, []byte{0}, prefix) }

// addCount adds d to the count of prefix in bucket.
func (t *txn) addCount(bucket, prefix []byte, d int) error {
	c := t.tx.Bucket(bCounts)
	k := countKey(bucket, prefix)
	var n int64
	if v := c.Get(k); v != nil {
		n = int64(binary.BigEndian.Uint64(v))
	}
	n += int64(d)
	if n < 0 {
		return fmt.Errorf("count %s/%x below zero", bucket, prefix)
	}
	if n == 0 {
		return c.Delete(k)
	}
	return c.Put(k, u64(uint64(n)))
}

// count is the number of entries under prefix in an index bucket.
func (t *txn) count(bucket, prefix []byte) int {
	v := t.tx.Bucket(bCounts).Get(countKey(bucket, prefix))
	if v == nil {
		return 0
	}
	return int(binary.BigEndian.Uint64(v))
}

// index adds "prefix|id" to an index bucket and counts it once.
func (t *txn) index(bucket, prefix []byte, id string) error {
	return t.indexSorted(bucket, prefix, nil, id)
}

// indexSorted adds "prefix|sort|id", ordered by sort within prefix and counted
// under prefix.
func (t *txn) indexSorted(bucket, prefix, sort []byte, id string) error {
	b := t.appendBucket(bucket)
	k := key(prefix, sort, idb(id))
	if b.Get(k) != nil {
		return nil
	}
	if err := b.Put(k, []byte{}); err != nil {
		return err
	}
	return t.addCount(bucket, prefix, 1)
}

// unindex removes "prefix|id" from an index bucket, uncounting it.
func (t *txn) unindex(bucket, prefix []byte, id string) error {
	b := t.tx.Bucket(bucket)
	k := key(prefix, idb(id))
	if b.Get(k) == nil {
		return nil
	}
	if err := b.Delete(k); err != nil {
		return err
	}
	return t.addCount(bucket, prefix, -1)
}

// all returns every id under prefix, newest first.
func (t *txn) all(bucket, prefix []byte) []string {
	return t.page(bucket, prefix, 0, -1)
}

// deletePrefix deletes every key under prefix in b.
func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// seekLast positions c on the last key with prefix (or before it).
func seekLast(c *bolt.Cursor, prefix []byte) ([]byte, []byte) {
	// The smallest key after every key with this prefix is prefix+1 in the
	// last byte that is not 0xff.
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			end = end[:i+1]
			if k, _ := c.Seek(end); k == nil {
				return c.Last()
			}
			return c.Prev()
		}
	}
	return c.Last()
}

// dropPrefix deletes every key under prefix of an index bucket and its count.
func (t *txn) dropPrefix(bucket, prefix []byte) ([]string, error) {
	var idsOut []string
	b := t.tx.Bucket(bucket)
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		idsOut = append(idsOut, ids(k[len(k)-16:]))
		if err := c.Delete(); err != nil {
			return nil, err
		}
	}
	if err := t.tx.Bucket(bCounts).Delete(countKey(bucket, prefix)); err != nil {
		return nil, err
	}
	return idsOut, nil
}

// listAll loads every record under prefix of an index into T values.
func listAll[T any](t *txn, index, prefix, records []byte) ([]*T, error) {
	return loadRecords[T](t, index, records, t.all(index, prefix))
}

// loadRecords loads the records of ids, which index listed; nil for none.
// An id whose record is missing is a broken index, not a record gone.
func loadRecords[T any](t *txn, index, records []byte, ids []string) ([]*T, error) {
	var out []*T
	for _, id := range ids {
		v := new(T)
		ok, err := t.get(records, id, v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("index %s points at missing %s/%s", index, records, id)
		}
		out = append(out, v)
	}
	return out, nil
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

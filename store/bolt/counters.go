package bolt

import (
	"context"
	"encoding/binary"
	"time"

	"licensectl/store"
)

var _ store.Counters = (*DB)(nil)

// The shared counters live in the file (bCounters), though one process
// alone serves a bbolt file and in-memory counts would be just as shared:
// kept in the file, the login throttles and the mail cap outlast a restart,
// which a guesser could otherwise provoke or wait for (docs/design.md §12).
// Their writes go through a group commit of their own, so that a burst of
// logins shares fsyncs rather than queueing one per attempt; each closure
// recomputes its answer from the stored window, so a batch run again after
// a failure answers right.

// counterWindow is a key's window as stored: 8 bytes of count, 8 of the
// window's end in unix nanoseconds.
type counterWindow struct {
	n   uint64
	end time.Time
}

func (t *txn) counterWindow(key string) (counterWindow, bool) {
	v := t.tx.Bucket(bCounters).Get([]byte(key))
	if len(v) != 16 {
		return counterWindow{}, false
	}
	return counterWindow{n: binary.BigEndian.Uint64(v), end: time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))}, true
}

func (t *txn) putCounterWindow(key string, w counterWindow) error {
	v := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), w.n), uint64(w.end.UnixNano()))
	return t.tx.Bucket(bCounters).Put([]byte(key), v)
}

// CountHit implements store.Counters.
func (db *DB) CountHit(ctx context.Context, key string, limit int, window time.Duration) (store.CounterState, error) {
	if err := store.CheckCounterHit(key, limit, window); err != nil {
		return store.CounterState{}, err
	}
	var out store.CounterState
	err := db.counts.do(ctx, func(t *txn) error {
		w, ok := t.counterWindow(key)
		if !ok || !t.now.Before(w.end) {
			w = counterWindow{end: t.now.Add(window)}
		}
		out = store.CounterState{Count: int(w.n), Reset: w.end.Sub(t.now)}
		if limit != store.Unlimited && w.n >= uint64(limit) {
			return nil
		}
		w.n++
		out.Allowed, out.Count = true, int(w.n)
		return t.putCounterWindow(key, w)
	})
	return out, err
}

// CountUndo implements store.Counters.
func (db *DB) CountUndo(ctx context.Context, key string) error {
	if err := store.CheckCounterKey(key); err != nil {
		return err
	}
	return db.counts.do(ctx, func(t *txn) error {
		w, ok := t.counterWindow(key)
		if !ok || w.n == 0 || !t.now.Before(w.end) {
			return nil
		}
		w.n--
		return t.putCounterWindow(key, w)
	})
}

// CountReset implements store.Counters.
func (db *DB) CountReset(ctx context.Context, key string) error {
	if err := store.CheckCounterKey(key); err != nil {
		return err
	}
	return db.counts.do(ctx, func(t *txn) error {
		return t.tx.Bucket(bCounters).Delete([]byte(key))
	})
}

// DeleteClosedCounters implements store.Tx. The bucket holds the keys seen
// within the longest window (an hour) and those not swept since, so it is
// walked whole rather than indexed by expiry.
func (t *txn) DeleteClosedCounters(limit int) (int, error) {
	var closed [][]byte
	c := t.tx.Bucket(bCounters).Cursor()
	for k, v := c.First(); k != nil && len(closed) < limit; k, v = c.Next() {
		if len(v) != 16 || !t.now.Before(time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))) {
			closed = append(closed, clone(k))
		}
	}
	for _, k := range closed {
		if err := t.tx.Bucket(bCounters).Delete(k); err != nil {
			return 0, err
		}
	}
	return len(closed), nil
}

package bolt

import (
	"context"
	"encoding/binary"
	"sync"
	"time"

	"licensectl/store"
)

// seenEntry is a device (and the session it was seen through) waiting for
// its last_seen_at to be written.
type seenEntry struct {
	sessionID string
	at        time.Time
}

// seenTracker collects last-seen times in memory so that validation never
// writes: FlushSeen writes them in one transaction.
type seenTracker struct {
	mu      sync.Mutex
	pending map[string]seenEntry // device id →
}

// note queues the device of v when its stored last_seen_at is older than
// every. The common case (recently seen) takes no lock.
func (st *seenTracker) note(v *sessionView, now time.Time, every time.Duration) {
	if v.dev.LastSeenAt != nil && now.Sub(*v.dev.LastSeenAt) < every {
		return
	}
	st.mu.Lock()
	st.pending[v.dev.ID] = seenEntry{sessionID: v.s.ID, at: now}
	st.mu.Unlock()
}

// FlushSeen writes the queued last-seen times of devices and their sessions
// in one transaction and reports how many devices it updated.
func (r *Runtime) FlushSeen(ctx context.Context) (int, error) {
	r.seen.mu.Lock()
	batch := r.seen.pending
	r.seen.pending = map[string]seenEntry{}
	r.seen.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	err := r.db.update(ctx, func(t *txn) error {
		for devID, e := range batch {
			d := new(store.Device)
			ok, err := t.get(bDevices, devID, d)
			if err != nil {
				return err
			}
			if !ok {
				continue // deleted since
			}
			prev := *d
			at := e.at
			d.LastSeenAt = &at
			if err := t.saveDevice(&prev, d); err != nil {
				return err
			}
			s := new(sessionRecord)
			if ok, err := t.get(bSessions, e.sessionID, s); err != nil {
				return err
			} else if ok {
				s.LastSeenAt = &at
				if err := t.put(bSessions, s.ID, s); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return len(batch), err
}

func usageKey(orgID string, at time.Time) []byte {
	return key(idb(orgID), []byte(store.MonthKey(at)))
}

// AddRuntimeRequests implements store.Runtime.
func (r *Runtime) AddRuntimeRequests(ctx context.Context, at time.Time, counts map[string]int64) error {
	if len(counts) == 0 {
		return nil
	}
	return r.db.update(ctx, func(t *txn) error {
		b := t.tx.Bucket(bUsage)
		for org, n := range counts {
			if idb(org) == nil || n <= 0 {
				continue
			}
			k := usageKey(org, at)
			var cur uint64
			if v := b.Get(k); len(v) == 8 {
				cur = binary.BigEndian.Uint64(v)
			}
			if err := b.Put(k, u64(cur+uint64(n))); err != nil {
				return err
			}
		}
		return nil
	})
}

// RuntimeRequests implements store.Runtime.
func (r *Runtime) RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error) {
	var n int64
	err := r.db.view(ctx, func(t *txn) error {
		if idb(orgID) == nil {
			return nil
		}
		if v := t.tx.Bucket(bUsage).Get(usageKey(orgID, at)); len(v) == 8 {
			n = int64(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	return n, err
}

package postgres

import (
	"context"
	"slices"
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
// writes: FlushSeen writes them in one transaction. It is this server's
// own: what it holds is only ever later than what the database says, so
// buffering it changes no answer (docs/design.md §12).
type seenTracker struct {
	mu      sync.Mutex
	pending map[string]seenEntry // device id →
}

// note queues the device of v when its stored last_seen_at is older than
// every.
func (st *seenTracker) note(v *sessionView, now time.Time, every time.Duration) {
	if v.dev.LastSeenAt != nil && now.Sub(*v.dev.LastSeenAt) < every {
		return
	}
	st.mu.Lock()
	st.pending[v.dev.ID] = seenEntry{sessionID: v.s.ID, at: now}
	st.mu.Unlock()
}

// FlushSeen implements store.RuntimeBackend: it writes the last-seen times
// this server queued, of devices and their sessions, in one transaction,
// and reports how many devices it updated. Every server flushes its own
// queue, so no pass lock is taken.
func (r *Runtime) FlushSeen(ctx context.Context) (int, error) {
	r.seen.mu.Lock()
	batch := r.seen.pending
	r.seen.pending = map[string]seenEntry{}
	r.seen.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	// Rows are locked in id order, so that two servers flushing the same
	// devices wait for each other instead of deadlocking.
	ids := make([]string, 0, len(batch))
	for id := range batch {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	err := r.db.update(ctx, func(t *txn) error {
		for _, devID := range ids {
			e := batch[devID]
			d, err := doc[store.Device](t, `SELECT doc FROM devices WHERE id = $1 FOR UPDATE`, devID)
			if err != nil {
				return err
			}
			if d == nil {
				continue // deleted since
			}
			if d.LastSeenAt == nil || d.LastSeenAt.Before(e.at) {
				at := e.at
				d.LastSeenAt = &at
				if err := t.saveDevice(d, false); err != nil {
					return err
				}
			}
			if _, err := t.exec(`UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND (last_seen_at IS NULL OR last_seen_at < $2)`,
				e.sessionID, e.at); err != nil {
				return err
			}
		}
		return nil
	})
	return len(batch), err
}

// AddRuntimeRequests implements store.Runtime. Every server adds its own
// counts to the month's row, so the month's usage is the sum over servers.
func (r *Runtime) AddRuntimeRequests(ctx context.Context, at time.Time, counts map[string]int64) error {
	orgs := make([]string, 0, len(counts))
	for org, n := range counts {
		if store.ValidID(org) && n > 0 {
			orgs = append(orgs, org)
		}
	}
	if len(orgs) == 0 {
		return nil
	}
	// In id order: two servers adding to the same organizations lock their
	// rows in one order.
	slices.Sort(orgs)
	ns := make([]int64, len(orgs))
	for i, org := range orgs {
		ns[i] = counts[org]
	}
	return r.db.update(ctx, func(t *txn) error {
		_, err := t.exec(`INSERT INTO runtime_usage (org_id, month, requests)
			SELECT o::uuid, $1, n FROM unnest($2::text[], $3::bigint[]) AS x(o, n)
			ON CONFLICT (org_id, month) DO UPDATE SET requests = runtime_usage.requests + EXCLUDED.requests`,
			store.MonthKey(at), orgs, ns)
		return err
	})
}

// RuntimeRequests implements store.Runtime.
func (r *Runtime) RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error) {
	if !store.ValidID(orgID) {
		return 0, nil
	}
	var n int64
	err := r.db.pool.QueryRow(ctx, `SELECT coalesce(sum(requests), 0) FROM runtime_usage WHERE org_id = $1 AND month = $2`,
		orgID, store.MonthKey(at)).Scan(&n)
	return n, mapError(err)
}

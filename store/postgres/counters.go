package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"licensectl/store"
)

var _ store.Counters = (*DB)(nil)

// The shared counters are rows of shared_counters, each changed by one
// statement outside any explicit transaction: the row's lock, taken by the
// statement, orders the hits of all servers on one key, so no two can both
// take the last slot of a window (docs/design.md §12, "Shared counters").

// counterHitSQL counts one hit: a new key, or one whose window has closed,
// opens a window at $3; a live window counts the hit when under the limit
// $2 (-1: always). counted tells the caller which.
const counterHitSQL = `INSERT INTO shared_counters AS c (key, n, counted, expires_at) VALUES ($1, 1, true, $3)
ON CONFLICT (key) DO UPDATE SET
	n = CASE WHEN c.expires_at <= $4 THEN 1 WHEN $2 < 0 OR c.n < $2 THEN c.n + 1 ELSE c.n END,
	counted = c.expires_at <= $4 OR $2 < 0 OR c.n < $2,
	expires_at = CASE WHEN c.expires_at <= $4 THEN EXCLUDED.expires_at ELSE c.expires_at END
RETURNING n, counted, expires_at`

// CountHit implements store.Counters.
func (db *DB) CountHit(ctx context.Context, key string, limit int, window time.Duration) (store.CounterState, error) {
	if err := store.CheckCounterHit(key, limit, window); err != nil {
		return store.CounterState{}, err
	}
	now := db.Clock()
	var out store.CounterState
	var end time.Time
	err := db.counterExec(ctx, func(q *pgxpool.Conn) error {
		return q.QueryRow(ctx, counterHitSQL, key, limit, now.Add(window), now).Scan(&out.Count, &out.Allowed, &end)
	})
	out.Reset = end.Sub(now)
	return out, err
}

// CountUndo implements store.Counters.
func (db *DB) CountUndo(ctx context.Context, key string) error {
	if err := store.CheckCounterKey(key); err != nil {
		return err
	}
	now := db.Clock()
	return db.counterExec(ctx, func(q *pgxpool.Conn) error {
		_, err := q.Exec(ctx, `UPDATE shared_counters SET n = n - 1 WHERE key = $1 AND n > 0 AND expires_at > $2`, key, now)
		return err
	})
}

// CountReset implements store.Counters.
func (db *DB) CountReset(ctx context.Context, key string) error {
	if err := store.CheckCounterKey(key); err != nil {
		return err
	}
	return db.counterExec(ctx, func(q *pgxpool.Conn) error {
		_, err := q.Exec(ctx, `DELETE FROM shared_counters WHERE key = $1`, key)
		return err
	})
}

// DeleteClosedCounters implements store.Tx. Rows locked by a hit are left
// to the next sweep rather than waited for.
func (t *txn) DeleteClosedCounters(limit int) (int, error) {
	n, err := t.exec(`DELETE FROM shared_counters WHERE key IN (
		SELECT key FROM shared_counters WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`, t.now, limit)
	return int(n), err
}

// counterExec runs fn's one statement on a pooled connection, waiting for
// one as a write does (a hit is a write).
func (db *DB) counterExec(ctx context.Context, fn func(q *pgxpool.Conn) error) error {
	conn, err := db.acquireWrite(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return fn(conn)
}

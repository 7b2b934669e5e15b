package postgres

import (
	"context"
	"sync"
	"time"

	"licensectl/store"
)

var _ store.StatsReporter = (*DB)(nil)

// statsSessionTTL is how long a session count is reused: counting the
// sessions table at every scrape would cost a scan each time. The figure is
// a metric, read by no decision, so a minute's staleness harms nothing.
const statsSessionTTL = time.Minute

// statsSessions caches the count of session rows for Stats.
type statsSessions struct {
	mu  sync.Mutex
	at  time.Time
	val int
}

// Stats implements store.StatsReporter. On PostgreSQL the figures mean:
// SizeBytes is the size of the whole database (pg_database_size, what the
// operator provisions disk for); Sessions counts the sessions table, all
// servers' sessions, recounted at most once a minute; and as PostgreSQL
// commits each transaction alone, this server's every write transaction is
// a commit of one in GroupCommitSize, and GroupCommitSeconds times its
// COMMIT, where the WAL is flushed: a rising time points at the database's
// disk as bbolt's does at the file's.
func (db *DB) Stats(ctx context.Context) (store.Stats, error) {
	var out store.Stats
	db.commits.Fill(&out)
	sc := &db.sessionCount
	sc.mu.Lock()
	defer sc.mu.Unlock()
	now := db.now()
	fresh := !sc.at.IsZero() && now.Sub(sc.at) < statsSessionTTL
	err := db.view(ctx, func(t *txn) error {
		if err := t.tx.QueryRow(t.ctx, `SELECT pg_database_size(current_database())`).Scan(&out.SizeBytes); err != nil {
			return err
		}
		if fresh {
			return nil
		}
		n, err := t.count(`SELECT count(*) FROM sessions`)
		if err != nil {
			return err
		}
		sc.val, sc.at = n, now
		return nil
	})
	out.Sessions = sc.val
	return out, err
}

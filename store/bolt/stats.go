package bolt

import (
	"context"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

var _ store.StatsReporter = (*DB)(nil)

// sessionCountTTL is how long a session count is reused: counting walks the
// pages of the sessions bucket, too much for every scrape.
const sessionCountTTL = time.Minute

// sessionCount caches the number of session records.
type sessionCount struct {
	mu  sync.Mutex
	at  time.Time
	val int
}

// Stats implements store.StatsReporter.
func (db *DB) Stats(ctx context.Context) (store.Stats, error) {
	var out store.Stats
	db.commits.Fill(&out)
	db.sessions.mu.Lock()
	defer db.sessions.mu.Unlock()
	fresh := !db.sessions.at.IsZero() && time.Since(db.sessions.at) < sessionCountTTL
	err := db.bolt.View(func(tx *bolt.Tx) error {
		out.SizeBytes = tx.Size()
		if !fresh {
			db.sessions.val = tx.Bucket(bSessions).Stats().KeyN
			db.sessions.at = time.Now()
		}
		return ctx.Err()
	})
	out.Sessions = db.sessions.val
	return out, err
}

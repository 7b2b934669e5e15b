package bolt

import (
	"context"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

var _ store.StatsReporter = (*DB)(nil)

// Stats implements store.StatsReporter.
func (db *DB) Stats(ctx context.Context) (store.Stats, error) {
	var out store.Stats
	db.commits.Fill(&out)
	err := db.bolt.View(func(tx *bolt.Tx) error {
		out.SizeBytes = tx.Size()
		out.Sessions, _ = db.sessions.Get(time.Now(), func() (int, error) { return tx.Bucket(bSessions).Stats().KeyN, nil })
		return ctx.Err()
	})
	return out, err
}

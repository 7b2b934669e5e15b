package postgres

import (
	"context"

	"licensectl/store"
)

var _ store.StatsReporter = (*DB)(nil)

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
	err := db.view(ctx, func(t *txn) error {
		if err := t.tx.QueryRow(t.ctx, `SELECT pg_database_size(current_database())`).Scan(&out.SizeBytes); err != nil {
			return err
		}
		var err error
		out.Sessions, err = db.sessionCount.Get(db.Clock(), func() (int, error) { return t.count(`SELECT count(*) FROM sessions`) })
		return err
	})
	return out, err
}

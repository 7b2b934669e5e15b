package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// listen keeps one connection LISTENing on the outbox channel and wakes the
// dispatcher on every notification: another server's committed events are
// sent without waiting for the poll. Lost connections are made again; the
// dispatcher's 1 s poll covers the gap (docs/design.md §12).
func (db *DB) listen(ctx context.Context) {
	defer close(db.done)
	for ctx.Err() == nil {
		err := db.listenOnce(ctx)
		if ctx.Err() != nil || err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (db *DB) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+outboxChannel); err != nil {
		return err
	}
	// Whatever was committed while no connection listened is looked at now.
	db.wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		db.wake()
	}
}

// wake tells the dispatcher that deliveries were queued; it never blocks.
func (db *DB) wake() {
	select {
	case db.enqueued <- struct{}{}:
	default:
	}
}

// Enqueued implements store.Outbox.
func (db *DB) Enqueued() <-chan struct{} { return db.enqueued }

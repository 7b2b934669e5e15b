package bolt

import (
	"context"
	"testing"
	"time"
)

// lastTxID is the id of the file's last committed write transaction.
func (db *DB) lastTxID(tb testing.TB) int {
	tb.Helper()
	tx, err := db.bolt.Begin(false)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	return tx.ID()
}

// TestSweepsReadFirst: a sweep with nothing due opens no write transaction
// (store.SweepChecker), so an idle round does not send the cached
// validation answers back to the cascade; one with something due removes
// it.
func TestSweepsReadFirst(t *testing.T) {
	e := newEnv(t)
	rt := e.db.Runtime(sessionRuntimeOptions())
	e.activatedSession(t, rt, "sweeper")
	for _, c := range []struct {
		name  string
		sweep func(ctx context.Context, limit int) (int, error)
		// due is how long after the activation its record can go.
		due time.Duration
	}{
		{"nonces", rt.SweepNonces, 2*time.Hour + time.Minute},
		{"sessions", rt.SweepSessions, 24 * time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.db.lastTxID(t)
			if n, err := c.sweep(e.ctx, 100); err != nil || n != 0 {
				t.Fatalf("idle sweep = %d, %v; want 0", n, err)
			}
			if after := e.db.lastTxID(t); after != before {
				t.Fatalf("the idle sweep committed (transaction %d after %d)", after, before)
			}
			e.clock.advance(c.due)
			if n, err := c.sweep(e.ctx, 100); err != nil || n != 1 {
				t.Fatalf("sweep when due = %d, %v; want 1", n, err)
			}
			if after := e.db.lastTxID(t); after == before {
				t.Fatal("the due sweep committed nothing")
			}
		})
	}
}

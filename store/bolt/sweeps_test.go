package bolt

import (
	"context"
	"testing"
	"time"

	"licensectl/store"
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
	for _, c := range []struct {
		name  string
		sweep func(rt *Runtime) func(ctx context.Context, limit int) (int, error)
		// prepare makes, after the activation, the one record the sweep
		// removes once due.
		prepare func(t *testing.T, e *env, rt *Runtime, client store.RuntimeClient, act *store.Activation)
		// due is how long after the activation its record can go.
		due time.Duration
	}{
		{"nonces", func(rt *Runtime) func(context.Context, int) (int, error) { return rt.SweepNonces }, nil, 2*time.Hour + time.Minute},
		{"sessions", func(rt *Runtime) func(context.Context, int) (int, error) { return rt.SweepSessions }, nil, 24 * time.Hour},
		{"leases", func(rt *Runtime) func(context.Context, int) (int, error) { return rt.SweepLeases },
			func(t *testing.T, e *env, rt *Runtime, client store.RuntimeClient, act *store.Activation) {
				if _, err := rt.CheckoutLease(e.ctx, client, act.AccessToken, store.Replay{Timestamp: e.clock.now(), Nonce: "sweeper-lease-0001"}); err != nil {
					t.Fatal(err)
				}
			}, store.DefaultLeaseSeconds*time.Second + time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			rt := e.db.Runtime(sessionRuntimeOptions())
			client, act := e.activatedSession(t, rt, "sweeper")
			if c.prepare != nil {
				c.prepare(t, e, rt, client, act)
			}
			sweep := c.sweep(rt)
			before := e.db.lastTxID(t)
			if n, err := sweep(e.ctx, 100); err != nil || n != 0 {
				t.Fatalf("idle sweep = %d, %v; want 0", n, err)
			}
			if after := e.db.lastTxID(t); after != before {
				t.Fatalf("the idle sweep committed (transaction %d after %d)", after, before)
			}
			e.clock.advance(c.due)
			if n, err := sweep(e.ctx, 100); err != nil || n != 1 {
				t.Fatalf("sweep when due = %d, %v; want 1", n, err)
			}
			if after := e.db.lastTxID(t); after == before {
				t.Fatal("the due sweep committed nothing")
			}
		})
	}
}

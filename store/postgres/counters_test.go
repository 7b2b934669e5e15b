package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storetest"
)

// TestCountersLockOnBothServers: wrong passwords spread over two servers
// count into one window, so the account is locked on both once the limit
// is reached between them, and opens on both when the window closes.
func TestCountersLockOnBothServers(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	dbs := twoServers(t, Options{Policies: store.Policies{Clock: clock.Now}})
	a, b := dbs[0], dbs[1]
	ctx := context.Background()
	const key, limit = "login:dashboard:pair:owner@example.com|192.0.2.1", 4
	for i := range limit {
		st, err := []*DB{a, b}[i%2].CountHit(ctx, key, limit, time.Minute)
		if err != nil || !st.Allowed || st.Count != i+1 {
			t.Fatalf("failure %d = %+v, %v; want counted as %d", i+1, st, err, i+1)
		}
	}
	for name, db := range map[string]*DB{"a": a, "b": b} {
		st, err := db.CountHit(ctx, key, limit, time.Minute)
		if err != nil || st.Allowed || st.Count != limit || st.Reset != time.Minute {
			t.Fatalf("server %s past the limit = %+v, %v; want refused for a minute", name, st, err)
		}
	}
	clock.Advance(time.Minute)
	for name, db := range map[string]*DB{"a": a, "b": b} {
		if st, err := db.CountHit(ctx, key, limit, time.Minute); err != nil || !st.Allowed {
			t.Fatalf("server %s after the window = %+v, %v; want allowed", name, st, err)
		}
	}

	// Parallel guesses over both servers get the limit between them.
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		db := []*DB{a, b}[i%2]
		wg.Go(func() {
			st, err := db.CountHit(ctx, "login:runtime:account:parallel", limit, time.Hour)
			if err != nil {
				t.Errorf("CountHit: %v", err)
			}
			if st.Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != limit {
		t.Fatalf("parallel guesses allowed = %d over two servers, want %d", allowed.Load(), limit)
	}
	// A success on one server clears the pair for both.
	if err := b.CountReset(ctx, key); err != nil {
		t.Fatal(err)
	}
	if st, err := a.CountHit(ctx, key, 1, time.Minute); err != nil || !st.Allowed || st.Count != 1 {
		t.Fatalf("after a reset on the other server = %+v, %v", st, err)
	}
}

// TestCounterSweepSkipsWhileAnotherServerSweeps: the counter sweep takes
// its pass lock like every other sweep: while another server holds it the
// round deletes nothing, and the next round deletes the closed window.
func TestCounterSweepSkipsWhileAnotherServerSweeps(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	dbs := twoServers(t, Options{Policies: store.Policies{Clock: clock.Now}})
	ctx := context.Background()
	if _, err := dbs[0].CountHit(ctx, "login:runtime:account:swept", 3, time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	tx, err := dbs[1].pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A failure below must not leave the connection taken: closing the
	// pool would wait for it.
	t.Cleanup(func() { tx.Rollback(ctx) })
	var held bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(`+passLockKey+`)`, string(store.SweepOfCounters)).Scan(&held); err != nil || !held {
		t.Fatalf("taking the counter sweep's lock on the other server: %v, %v", held, err)
	}
	if n, err := dbs[0].SweepCounters(ctx, 10); err != nil || n != 0 {
		t.Fatalf("SweepCounters while the other server sweeps = %d, %v; want 0", n, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := dbs[0].SweepCounters(ctx, 10); err != nil || n != 1 {
		t.Fatalf("SweepCounters after = %d, %v; want 1", n, err)
	}
}

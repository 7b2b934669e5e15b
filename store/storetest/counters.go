package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// testCounters: the shared counters of docs/design.md §12 count events per
// key in fixed windows, refuse past the limit without counting, take back,
// forget, reopen a closed window, settle parallel hits on the limit exactly,
// and are swept once closed.
func testCounters(t *testing.T, open Opener) {
	h := open(t, Billing(false))
	be, clock, ctx := h.Backend, h.Clock, context.Background()
	hit := func(what, key string, limit int, wantOK bool, wantN int, wantReset time.Duration) {
		t.Helper()
		st, err := be.CountHit(ctx, key, limit, time.Minute)
		if err != nil || st.Allowed != wantOK || st.Count != wantN || st.Reset != wantReset {
			t.Fatalf("%s: CountHit(%s) = %+v, %v; want allowed %v, count %d, reset %v", what, key, st, err, wantOK, wantN, wantReset)
		}
	}
	t.Run("OKWindow", func(t *testing.T) {
		for i := 1; i <= 3; i++ {
			hit("under the limit", "login:a", 3, true, i, time.Minute)
		}
		clock.Advance(20 * time.Second)
		hit("past the limit", "login:a", 3, false, 3, 40*time.Second)
		hit("another key", "login:b", 3, true, 1, time.Minute)
		if err := be.CountUndo(ctx, "login:a"); err != nil {
			t.Fatal(err)
		}
		hit("after an undo", "login:a", 3, true, 3, 40*time.Second)
		hit("forced", "login:a", store.Unlimited, true, 4, 40*time.Second)
		if err := be.CountUndo(ctx, "login:a"); err != nil {
			t.Fatal(err)
		}
		hit("forced, then undone", "login:a", 3, false, 3, 40*time.Second)
		if err := be.CountUndo(ctx, "login:none"); err != nil {
			t.Fatalf("CountUndo(no window): %v", err)
		}
		hit("an undo opens no window", "login:none", 1, true, 1, time.Minute)
		clock.Advance(40 * time.Second)
		hit("the window closed", "login:a", 3, true, 1, time.Minute)
		if err := be.CountReset(ctx, "login:a"); err != nil {
			t.Fatal(err)
		}
		hit("after a reset", "login:a", 1, true, 1, time.Minute)
		hit("after a reset, at the limit", "login:a", 1, false, 1, time.Minute)
	})
	t.Run("ErrArguments", func(t *testing.T) {
		for _, limit := range []int{0, -2} {
			if _, err := be.CountHit(ctx, "login:c", limit, time.Minute); err == nil {
				t.Fatalf("CountHit(limit %d) succeeded", limit)
			}
		}
		if _, err := be.CountHit(ctx, "", 1, time.Minute); err == nil {
			t.Fatal("CountHit(no key) succeeded")
		}
	})
	t.Run("OKParallel", func(t *testing.T) {
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				st, err := be.CountHit(ctx, "login:parallel", 5, time.Minute)
				if err != nil {
					t.Errorf("CountHit: %v", err)
				}
				if st.Allowed {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if allowed.Load() != 5 {
			t.Fatalf("parallel hits allowed = %d, want 5", allowed.Load())
		}
	})
	t.Run("OKSweep", func(t *testing.T) {
		clock.Advance(2 * time.Minute)
		hit("a live window", "login:live", 1, true, 1, time.Minute)
		// Closed: login:a, login:b, login:none, login:parallel.
		if n, err := be.SweepCounters(ctx, 1); err != nil || n != 1 {
			t.Fatalf("SweepCounters(1) = %d, %v; want 1", n, err)
		}
		if n, err := be.SweepCounters(ctx, 100); err != nil || n != 3 {
			t.Fatalf("SweepCounters(100) = %d, %v; want the 3 other closed windows", n, err)
		}
		hit("the live window outlasts the sweep", "login:live", 1, false, 1, time.Minute)
	})
}

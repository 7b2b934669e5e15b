package server

import (
	"context"
	"testing"
	"time"

	"licensectl/store"
)

// TestWriteAdmission: writes past the slots wait in arrival order and take
// the slots as they free; one that waits past the bound is shed, and while
// the oldest waiter is at the bound a newcomer is shed without waiting; the
// store learns when each admitted write began to wait.
func TestWriteAdmission(t *testing.T) {
	ctx := context.Background()
	a := newWriteAdmission(time.Hour, 2)
	var held []func()
	for range 2 {
		actx, release, err := a.admit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if since := store.WriteWaitSince(actx); time.Since(since) > time.Minute {
			t.Fatalf("admitted write began to wait at %v", since)
		}
		held = append(held, release)
	}
	// Three more wait; they must get in as 1, 2, 3.
	order := make(chan int, 3)
	for i := 1; i <= 3; i++ {
		go func() {
			_, release, err := a.admit(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			release()
		}()
		waitFor(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return len(a.waiters) == i })
	}
	// One slot freed: each waiter, leaving, hands it to the next.
	held[0]()
	for want := 1; want <= 3; want++ {
		if got := <-order; got != want {
			t.Fatalf("waiter %d got in as number %d", got, want)
		}
	}
	held[1]()
	waitFor(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.free == 2 })

	t.Run("ShedPastTheBound", func(t *testing.T) {
		a := newWriteAdmission(50*time.Millisecond, 1)
		_, release, err := a.admit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if _, _, err := a.admit(ctx); store.ErrorCode(err) != store.ECodeOverloaded {
			t.Fatalf("waiting past the bound: %v, want overloaded", err)
		}
		// A waiter that gave up leaves no trace: the slot, once free,
		// goes to the next one at once.
		a.mu.Lock()
		gone := len(a.waiters) == 1 && a.waiters[0].gone
		a.mu.Unlock()
		if !gone {
			t.Fatal("the shed waiter is not marked gone")
		}
	})
	t.Run("ShedAtOnceBehindAnOldWaiter", func(t *testing.T) {
		a := newWriteAdmission(time.Hour, 0)
		a.waiters = []*admissionWaiter{{since: time.Now().Add(-2 * time.Hour), granted: make(chan struct{})}}
		done := make(chan error, 1)
		go func() { _, _, err := a.admit(ctx); done <- err }()
		select {
		case err := <-done:
			if store.ErrorCode(err) != store.ECodeOverloaded {
				t.Fatalf("behind a waiter at its bound: %v, want overloaded", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a newcomer behind a waiter at its bound waited")
		}
	})
	t.Run("GoneRequestGivesUp", func(t *testing.T) {
		a := newWriteAdmission(0, 0)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := a.admit(cctx); store.ErrorCode(err) != store.ECodeOverloaded {
			t.Fatalf("a request gone while waiting: %v, want overloaded", err)
		}
		a.release() // the slot skips the gone waiter
		if a.free != 1 || len(a.waiters) != 0 {
			t.Fatalf("after release: %d free, %d waiting", a.free, len(a.waiters))
		}
	})
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(time.Millisecond)
	}
}

package server

import (
	"context"
	"runtime"
	"sync"
	"time"

	"licensectl/store"
)

// writeAdmission bounds the runtime's writes in flight (docs/design.md §14).
// A write takes a slot before its costly part (decoding, hashing, the
// store's reads and token signing) and holds it until it is answered, so
// that however many connections send writes, only a few are ever runnable
// at once: the others wait parked, in arrival order, costing nothing. A read
// arriving meanwhile is scheduled behind those few instead of behind every
// write in flight, and each commit of the group commit wakes no more
// goroutines than there are slots. Without the bound, 1,024 connections
// writing on one core kept answers waiting 10 s and more before their
// handler even ran, without a write ever waiting long for the writer
// (docs/performance.md, "Writes in flight").
//
// A write that finds no slot waits at most maxWait; past it, or at once when
// the oldest waiter has already waited that long, it is shed: 503
// overloaded, nothing done. The store counts its own wait for the writer
// from the same start, so maxWait bounds a write's whole wait.
type writeAdmission struct {
	maxWait time.Duration // 0: wait as long as it takes

	mu      sync.Mutex
	free    int
	waiters []*admissionWaiter // oldest first
}

type admissionWaiter struct {
	since   time.Time
	granted chan struct{}
	gone    bool // gave up; the slot passes to the next
}

// admissionSlots is how many writes may be in flight per CPU. Measured on
// one core with 1,024 connections activating: 32 keeps every answer's
// latency within a few times the median and validations fast, at the
// activation rate of no bound at all; 256 or none let answers wait seconds.
const admissionSlots = 32

// defaultWriteSlots is admissionSlots for each CPU the server may use.
func defaultWriteSlots() int { return admissionSlots * runtime.GOMAXPROCS(0) }

func newWriteAdmission(maxWait time.Duration, slots int) *writeAdmission {
	return &writeAdmission{maxWait: maxWait, free: max(slots, 0)}
}

// admit waits for a slot and returns ctx telling the store when the write
// began to wait, and the release to call once the write is answered; or
// overloaded.
func (a *writeAdmission) admit(ctx context.Context) (context.Context, func(), error) {
	since := time.Now()
	a.mu.Lock()
	for len(a.waiters) > 0 && a.waiters[0].gone {
		a.waiters[0] = nil
		a.waiters = a.waiters[1:]
	}
	if a.free > 0 && len(a.waiters) == 0 {
		a.free--
		a.mu.Unlock()
		return store.WithWriteWaitSince(ctx, since), a.release, nil
	}
	if a.maxWait > 0 && len(a.waiters) > 0 && since.Sub(a.waiters[0].since) >= a.maxWait {
		// The oldest waiter is at its bound: a newcomer would wait longer
		// still, so it is shed without waiting.
		a.mu.Unlock()
		return nil, nil, store.ErrOverloaded()
	}
	w := &admissionWaiter{since: since, granted: make(chan struct{})}
	a.waiters = append(a.waiters, w)
	a.mu.Unlock()

	var timeout <-chan time.Time
	if a.maxWait > 0 {
		t := time.NewTimer(a.maxWait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-w.granted:
		return store.WithWriteWaitSince(ctx, since), a.release, nil
	case <-timeout:
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.granted: // granted as it gave up: the slot is its own to pass on
		a.mu.Unlock()
		a.release()
	default:
		w.gone = true
		a.mu.Unlock()
	}
	// A request gone while it waited is shed too: it changed nothing, and
	// nobody reads the answer, so it is no failure to log.
	return nil, nil, store.ErrOverloaded()
}

// release passes a slot to the oldest waiter still waiting, or frees it.
func (a *writeAdmission) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.waiters) > 0 {
		w := a.waiters[0]
		a.waiters[0] = nil
		a.waiters = a.waiters[1:]
		if !w.gone {
			close(w.granted)
			return
		}
	}
	a.free++
}

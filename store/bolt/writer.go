package bolt

import (
	"time"

	"licensectl/store"
)

// writerGate is the one way to bbolt's single writer (docs/design.md §14):
// every write waits its turn here, at most maxWait, instead of queueing on
// bbolt's own lock without bound. Go wakes a channel's waiters in the order
// they came, so the queue is fair; a write that waited too long is refused
// before it ran, so it changed nothing.
type writerGate struct {
	ch      chan struct{}
	maxWait time.Duration // 0: wait as long as it takes
}

func newWriterGate(maxWait time.Duration) *writerGate {
	return &writerGate{ch: make(chan struct{}, 1), maxWait: maxWait}
}

// acquire takes the writer, or answers overloaded once the write has
// waited maxWait since since (the request's admission, or now).
func (g *writerGate) acquire(since time.Time) error {
	if g.maxWait <= 0 {
		g.ch <- struct{}{}
		return nil
	}
	select {
	case g.ch <- struct{}{}:
		return nil
	default:
	}
	left := g.maxWait - time.Since(since)
	if left <= 0 {
		return store.ErrOverloaded()
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case g.ch <- struct{}{}:
		return nil
	case <-t.C:
		return store.ErrOverloaded()
	}
}

// hold takes the writer however long it waits: for the group commit,
// whose calls bound their own wait (expired).
func (g *writerGate) hold() { g.ch <- struct{}{} }

func (g *writerGate) release() { <-g.ch }

// expired reports whether a write queued at since has waited past maxWait.
func (g *writerGate) expired(since time.Time) bool {
	return g.maxWait > 0 && time.Since(since) > g.maxWait
}

package server

import (
	"sync"
	"time"

	"licensectl/store"
)

// windowLimiter counts events per key in fixed windows: the first event of a
// key opens a window of length window, and at most limit events are allowed
// until it closes. It reads the server's clock, so tests can move time. It
// is in memory: a restart forgets the counts, which only ever lets a client
// start over, never locks one out.
type windowLimiter struct {
	limit  int
	window time.Duration
	now    store.Clock

	mu        sync.Mutex
	counts    map[string]*windowCount
	nextSweep time.Time
}

type windowCount struct {
	start time.Time
	n     int
}

func newWindowLimiter(limit int, window time.Duration, now store.Clock) *windowLimiter {
	return &windowLimiter{limit: limit, window: window, now: now, counts: make(map[string]*windowCount)}
}

// limitState is a key's standing after an Allow or Check.
type limitState struct {
	ok        bool
	remaining int
	reset     time.Duration // until the window closes
}

// retryAfter is reset in whole seconds, at least 1, as Retry-After wants.
func (s limitState) retryAfter() int {
	secs := int((s.reset + time.Second - 1) / time.Second)
	return max(secs, 1)
}

// current returns key's live window, or nil; the caller holds mu.
func (l *windowLimiter) current(key string, now time.Time) *windowCount {
	if !now.Before(l.nextSweep) {
		// Sweep closed windows at most once per window, so the map holds
		// only keys seen recently and each call stays O(1) amortized.
		for k, c := range l.counts {
			if !now.Before(c.start.Add(l.window)) {
				delete(l.counts, k)
			}
		}
		l.nextSweep = now.Add(l.window)
	}
	c := l.counts[key]
	if c != nil && !now.Before(c.start.Add(l.window)) {
		delete(l.counts, key)
		return nil
	}
	return c
}

// Allow counts one event for key and reports whether it is within the limit.
// Refused events are not counted, so a client that waits is let in.
func (l *windowLimiter) Allow(key string) limitState {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.current(key, now)
	if c == nil {
		c = &windowCount{start: now}
		l.counts[key] = c
	}
	reset := c.start.Add(l.window).Sub(now)
	if c.n >= l.limit {
		return limitState{ok: false, remaining: 0, reset: reset}
	}
	c.n++
	return limitState{ok: true, remaining: l.limit - c.n, reset: reset}
}

// Undo takes back one event counted by Allow that turned out not to count.
func (l *windowLimiter) Undo(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.counts[key]; c != nil && c.n > 0 {
		c.n--
	}
}

// Reset forgets key (a successful login clears its failures).
func (l *windowLimiter) Reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.counts, key)
}

// rateLimited is the 429 error for a refused event.
func rateLimited(st limitState, msg string) error {
	return &store.Error{Code: store.ECodeRateLimited, Message: msg, RetryAfter: st.retryAfter()}
}

package server

import (
	"hash/maphash"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"licensectl/store"
)

// limiter counts events per key (client IP, credential, account) in fixed
// windows: the first event of a key opens a window of length window, and at
// most limit events are allowed until it closes. A fixed window is enough
// here: its worst case, twice the limit across a window boundary, still
// bounds abuse, and it costs one map access under a sharded lock. It reads
// the server's clock, so tests can move time, and it is in memory: a restart
// forgets the counts, which only ever lets a client start over.
type limiter struct {
	// refused counts refusals, for the metrics.
	refused atomic.Uint64

	limit  int
	window time.Duration
	now    store.Clock
	seed   maphash.Seed
	shards [32]limitShard
}

type limitShard struct {
	mu        sync.Mutex
	m         map[string]*limitWindow
	nextSweep time.Time
}

type limitWindow struct {
	start time.Time
	n     int
}

func newLimiter(limit int, window time.Duration, now store.Clock) *limiter {
	l := &limiter{limit: limit, window: window, now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].m = map[string]*limitWindow{}
	}
	return l
}

// limitState is a key's standing after Allow.
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

func (l *limiter) shard(key string) *limitShard {
	return &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
}

// current returns key's live window, or nil; the caller holds sh.mu.
func (l *limiter) current(sh *limitShard, key string, now time.Time) *limitWindow {
	if !now.Before(sh.nextSweep) {
		// Sweep closed windows at most once per window, so a shard holds
		// only keys seen recently and each call stays O(1) amortized.
		for k, w := range sh.m {
			if !now.Before(w.start.Add(l.window)) {
				delete(sh.m, k)
			}
		}
		sh.nextSweep = now.Add(l.window)
	}
	w := sh.m[key]
	if w != nil && !now.Before(w.start.Add(l.window)) {
		delete(sh.m, key)
		return nil
	}
	return w
}

// open returns key's live window, opening one when there is none; the
// caller holds sh.mu.
func (l *limiter) open(sh *limitShard, key string, now time.Time) *limitWindow {
	w := l.current(sh, key, now)
	if w == nil {
		w = &limitWindow{start: now}
		sh.m[key] = w
	}
	return w
}

// Allow counts one event for key and reports whether it is within the limit.
// Refused events are not counted, so a client that waits is let in.
func (l *limiter) Allow(key string) limitState {
	now := l.now()
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	w := l.open(sh, key, now)
	reset := w.start.Add(l.window).Sub(now)
	if w.n >= l.limit {
		l.refused.Add(1)
		return limitState{ok: false, remaining: 0, reset: reset}
	}
	w.n++
	return limitState{ok: true, remaining: l.limit - w.n, reset: reset}
}

// take counts one request of key and sets the RateLimit headers; past the
// limit it returns rate_limited with msg and the seconds until the window
// resets.
func (l *limiter) take(w http.ResponseWriter, key, msg string) error {
	st := l.Allow(key)
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(st.remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(st.retryAfter()))
	if !st.ok {
		return rateLimited(st, msg)
	}
	return nil
}

// rateLimited is the 429 error for a refused event.
func rateLimited(st limitState, msg string) error {
	return &store.Error{Code: store.ECodeRateLimited, Message: msg, RetryAfter: st.retryAfter()}
}

// requestLimitMsg is the message of the per-IP and per-credential limits.
const requestLimitMsg = "too many requests; retry after the window resets"

// limitMgmt applies the per-credential management limit.
func (s *Server) limitMgmt(w http.ResponseWriter, p *principal) error {
	if s.rt == nil || s.rt.mgLimit == nil {
		return nil
	}
	return s.rt.mgLimit.take(w, p.Kind+":"+p.ID+":"+p.OrgID, requestLimitMsg)
}

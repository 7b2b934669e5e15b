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
//
// The table holds at most limiterKeys keys (docs/design.md §14: memory stays
// bounded), however many addresses a flood comes from. A full shard makes
// room by forgetting a key that has counted one event only, the one seen
// longest ago; only when every key has counted more does it forget the key
// seen longest ago among those. A key that is forgotten starts over, so what
// eviction can loosen is the limit of an address that sent a single request,
// never that of an address sending often: that one is always recent.
type limiter struct {
	// refused counts refusals, for the metrics.
	refused atomic.Uint64

	limit    int
	window   time.Duration
	now      store.Clock
	seed     maphash.Seed
	shardCap int // keys per shard
	shards   [limitShards]limitShard
}

const (
	limitShards = 32
	// limiterKeys bounds one limiter's table: about 150 bytes a key, so
	// 10 MB a limiter, and more distinct addresses than one server sees
	// within a window short of a flood.
	limiterKeys = 1 << 16
)

type limitShard struct {
	mu        sync.Mutex
	m         map[string]*limitWindow
	nextSweep time.Time
	// once holds the keys that counted one event, repeat the others, each
	// most recently seen first: the order in which evict forgets them.
	once, repeat limitList
}

type limitWindow struct {
	key        string
	start      time.Time
	n          int
	prev, next *limitWindow
	list       *limitList
}

// limitList is a doubly linked list of windows around a sentinel.
type limitList struct{ root limitWindow }

func (l *limitList) init() { l.root.prev, l.root.next = &l.root, &l.root }

func (l *limitList) pushFront(w *limitWindow) {
	w.list, w.prev, w.next = l, &l.root, l.root.next
	l.root.next.prev = w
	l.root.next = w
}

// back is the window seen longest ago, or nil.
func (l *limitList) back() *limitWindow {
	if l.root.prev == &l.root {
		return nil
	}
	return l.root.prev
}

func unlink(w *limitWindow) {
	w.prev.next, w.next.prev = w.next, w.prev
	w.prev, w.next, w.list = nil, nil, nil
}

func newLimiter(limit int, window time.Duration, now store.Clock) *limiter {
	return newLimiterCap(limit, window, now, limiterKeys)
}

// newLimiterCap is newLimiter holding at most keys keys (at least one per
// shard).
func newLimiterCap(limit int, window time.Duration, now store.Clock, keys int) *limiter {
	l := &limiter{limit: limit, window: window, now: now, seed: maphash.MakeSeed(), shardCap: max(keys/limitShards, 1)}
	for i := range l.shards {
		l.shards[i].m = map[string]*limitWindow{}
		l.shards[i].once.init()
		l.shards[i].repeat.init()
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

func (sh *limitShard) remove(w *limitWindow) {
	unlink(w)
	delete(sh.m, w.key)
}

// current returns key's live window, or nil; the caller holds sh.mu.
func (l *limiter) current(sh *limitShard, key string, now time.Time) *limitWindow {
	if !now.Before(sh.nextSweep) {
		// Sweep closed windows at most once per window, so a shard holds
		// only keys seen recently and each call stays O(1) amortized.
		for _, w := range sh.m {
			if !now.Before(w.start.Add(l.window)) {
				sh.remove(w)
			}
		}
		sh.nextSweep = now.Add(l.window)
	}
	w := sh.m[key]
	if w != nil && !now.Before(w.start.Add(l.window)) {
		sh.remove(w)
		return nil
	}
	return w
}

// open returns key's live window, opening one when there is none; the
// caller holds sh.mu.
func (l *limiter) open(sh *limitShard, key string, now time.Time) *limitWindow {
	w := l.current(sh, key, now)
	if w == nil {
		if len(sh.m) >= l.shardCap {
			victim := sh.once.back()
			if victim == nil {
				victim = sh.repeat.back()
			}
			sh.remove(victim)
		}
		w = &limitWindow{key: key, start: now}
		sh.m[key] = w
		sh.once.pushFront(w)
	}
	return w
}

// seen moves w to the front of its list, or to repeat once it has counted
// more than one event or was refused; the caller holds sh.mu.
func (sh *limitShard) seen(w *limitWindow, refused bool) {
	unlink(w)
	if refused || w.n > 1 {
		sh.repeat.pushFront(w)
	} else {
		sh.once.pushFront(w)
	}
}

// size is how many keys the table holds.
func (l *limiter) size() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
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
		// A refused key is one under attack: it stays the most recent
		// of those that are forgotten last.
		sh.seen(w, true)
		l.refused.Add(1)
		return limitState{ok: false, remaining: 0, reset: reset}
	}
	w.n++
	sh.seen(w, false)
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

package server

import (
	"hash/maphash"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"licensectl/store"
)

// limiter is a fixed-window request counter per key (client IP or
// credential). A fixed window is enough here: its worst case, twice the limit
// across a window boundary, still bounds abuse, and it costs one map access
// per request under a sharded lock.
type limiter struct {
	limit  int
	window time.Duration
	now    store.Clock
	seed   maphash.Seed
	shards [32]limitShard
}

type limitShard struct {
	mu sync.Mutex
	m  map[string]*limitWindow
}

type limitWindow struct {
	start time.Time
	n     int
}

// maxLimitKeys bounds one shard; stale windows are dropped when it is full.
const maxLimitKeys = 1 << 14

func newLimiter(limit int, window time.Duration, now store.Clock) *limiter {
	l := &limiter{limit: limit, window: window, now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].m = map[string]*limitWindow{}
	}
	return l
}

// take counts one request of key and sets the RateLimit headers; past the
// limit it returns rate_limited with the seconds until the window resets.
func (l *limiter) take(w http.ResponseWriter, key string) error {
	now := l.now()
	sh := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	sh.mu.Lock()
	win := sh.m[key]
	if win == nil || now.Sub(win.start) >= l.window {
		if win == nil && len(sh.m) >= maxLimitKeys {
			for k, v := range sh.m {
				if now.Sub(v.start) >= l.window {
					delete(sh.m, k)
				}
			}
		}
		win = &limitWindow{start: now}
		sh.m[key] = win
	}
	win.n++
	n, start := win.n, win.start
	sh.mu.Unlock()

	reset := int(math.Ceil(start.Add(l.window).Sub(now).Seconds()))
	if reset < 1 {
		reset = 1
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(l.limit-n, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	if n > l.limit {
		return &store.Error{Code: store.ECodeRateLimited, Message: "too many requests; retry after the window resets", RetryAfter: reset}
	}
	return nil
}

// limitMgmt applies the per-credential management limit.
func (s *Server) limitMgmt(w http.ResponseWriter, p *principal) error {
	if s.rt == nil || s.rt.mgLimit == nil {
		return nil
	}
	return s.rt.mgLimit.take(w, p.Kind+":"+p.ID+":"+p.OrgID)
}

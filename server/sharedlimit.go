package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"sync/atomic"
	"time"

	"licensectl/store"
)

// sharedLimiter is a limiter whose counts live in the store
// (store.Counters), so that every server of one store counts into the same
// window: what guards accounts, the login throttles and the mail cap, must
// not multiply with the servers behind a balancer (docs/design.md §12,
// "Shared counters"). Request-rate limits stay per-server limiters: they
// shed load, which each server bears alone. The store sees a digest of
// each key, not the e-mail and client addresses it is made of.
type sharedLimiter struct {
	// refused counts this server's refusals, for the metrics.
	refused atomic.Uint64

	name   string // the key space, e.g. "login:dashboard:pair"
	limit  int
	window time.Duration
	store  store.Counters
}

func newSharedLimiter(c store.Counters, name string, limit int, window time.Duration) *sharedLimiter {
	return &sharedLimiter{name: name, limit: limit, window: window, store: c}
}

// key is the stored key of k.
func (l *sharedLimiter) key(k string) string {
	sum := sha256.Sum256([]byte(k))
	return l.name + ":" + base64.RawURLEncoding.EncodeToString(sum[:18])
}

// Allow counts one event for key and reports whether it is within the limit.
// Refused events are not counted, so a client that waits is let in.
func (l *sharedLimiter) Allow(ctx context.Context, key string) (limitState, error) {
	st, err := l.store.CountHit(ctx, l.key(key), l.limit, l.window)
	if err != nil {
		return limitState{}, err
	}
	if !st.Allowed {
		l.refused.Add(1)
	}
	return limitState{ok: st.Allowed, remaining: max(l.limit-st.Count, 0), reset: st.Reset}, nil
}

// Force counts one event for key even past the limit: an event let through
// on other grounds (a solved challenge) still counts, so that taking back
// another one later leaves the key at or over its limit.
func (l *sharedLimiter) Force(ctx context.Context, key string) error {
	_, err := l.store.CountHit(ctx, l.key(key), store.Unlimited, l.window)
	return err
}

// Undo takes back one event counted by Allow that turned out not to count.
// It runs to its end even when the request has gone.
func (l *sharedLimiter) Undo(ctx context.Context, key string) error {
	return l.store.CountUndo(context.WithoutCancel(ctx), l.key(key))
}

// Reset forgets key (a successful login clears its failures).
func (l *sharedLimiter) Reset(ctx context.Context, key string) error {
	return l.store.CountReset(context.WithoutCancel(ctx), l.key(key))
}

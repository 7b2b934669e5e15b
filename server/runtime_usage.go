package server

import (
	"context"
	"sync"
	"sync/atomic"

	"licensectl/store"
	"licensectl/store/bolt"
)

// usageCounter counts runtime requests in memory, per application
// identification, and flushes them to the store in batches: counting must
// not write on every request. Organizations are resolved at flush time, so
// the request path is one map read and an atomic add.
type usageCounter struct {
	rt  *bolt.Runtime
	now store.Clock
	mu  sync.RWMutex
	m   map[store.RuntimeClient]*atomic.Int64
}

// maxUsageKeys bounds the map between flushes; past it, new keys are
// counted at the next flush only if they show up again.
const maxUsageKeys = 1 << 16

func newUsageCounter(rt *bolt.Runtime, now store.Clock) *usageCounter {
	return &usageCounter{rt: rt, now: now, m: map[store.RuntimeClient]*atomic.Int64{}}
}

// add counts one request of c.
func (u *usageCounter) add(c store.RuntimeClient) {
	// The add happens under the read lock so that a flush, which swaps the
	// map under the write lock, never misses it.
	u.mu.RLock()
	if n := u.m[c]; n != nil {
		n.Add(1)
		u.mu.RUnlock()
		return
	}
	u.mu.RUnlock()
	u.mu.Lock()
	defer u.mu.Unlock()
	n := u.m[c]
	if n == nil {
		if len(u.m) >= maxUsageKeys {
			return
		}
		n = new(atomic.Int64)
		u.m[c] = n
	}
	n.Add(1)
}

// flush adds the counts so far to each organization's monthly total.
func (u *usageCounter) flush(ctx context.Context) error {
	u.mu.Lock()
	batch := u.m
	u.m = map[store.RuntimeClient]*atomic.Int64{}
	u.mu.Unlock()
	counts := map[string]int64{}
	for c, n := range batch {
		ra, err := u.rt.ResolveApp(ctx, c)
		if err != nil {
			continue // the application is gone: nobody to bill
		}
		counts[ra.App.OrgID] += n.Load()
	}
	return u.rt.AddRuntimeRequests(ctx, u.now(), counts)
}

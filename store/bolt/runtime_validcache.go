package bolt

import (
	"sync"
	"time"

	"licensectl/store"
)

// validCache remembers validation answers per access token, stamped with
// the id of the last committed write transaction they were computed under
// (a read transaction's ID). A later validation reuses an answer only when
// no write at all has committed since, for the same application
// environment, and before the answer can change with time (the access
// token's or the license's expiry, or the device's last-seen refresh). It
// is exact, never stale: any write anywhere moves the id on and every entry
// falls back to the full cascade. It pays off when validations outnumber
// writes, which is the usual shape of runtime traffic (clients validate on
// start and periodically, write rarely).
type validCache struct {
	shards [cacheShards]struct {
		mu sync.RWMutex
		m  map[[32]byte]*validEntry
	}
}

// maxValidEntries bounds one shard of remembered answers (64 shards of
// 8,192 tokens, small entries).
const maxValidEntries = 1 << 13

type validEntry struct {
	txid   int
	client store.RuntimeClient
	v      *store.Validation
	until  time.Time
}

func newValidCache() *validCache {
	c := &validCache{}
	for i := range c.shards {
		c.shards[i].m = map[[32]byte]*validEntry{}
	}
	return c
}

func (c *validCache) get(k [32]byte, txid int, client store.RuntimeClient, now time.Time) *store.Validation {
	sh := &c.shards[int(k[0])%cacheShards]
	sh.mu.RLock()
	e := sh.m[k]
	sh.mu.RUnlock()
	if e == nil || e.txid != txid || e.client != client || !now.Before(e.until) {
		return nil
	}
	return e.v
}

func (c *validCache) put(k [32]byte, e *validEntry) {
	sh := &c.shards[int(k[0])%cacheShards]
	sh.mu.Lock()
	if len(sh.m) >= maxValidEntries {
		clear(sh.m)
	}
	sh.m[k] = e
	sh.mu.Unlock()
}

// validUntil is when a valid answer must be recomputed even without writes.
func validUntil(v *sessionView, now time.Time, seenEvery time.Duration) time.Time {
	until := v.s.AccessExpiresAt
	if v.lic != nil && v.lic.ExpiresAt != nil && v.lic.ExpiresAt.Before(until) {
		until = *v.lic.ExpiresAt
	}
	seen := now.Add(seenEvery)
	if v.dev.LastSeenAt != nil && now.Sub(*v.dev.LastSeenAt) < seenEvery {
		seen = v.dev.LastSeenAt.Add(seenEvery)
	}
	if seen.Before(until) {
		until = seen
	}
	return until
}

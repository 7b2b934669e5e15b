package bolt

import (
	"bytes"
	"context"
	"sync"
	"time"

	"licensectl/store"
)

var _ store.Runtime = (*Runtime)(nil)

// RuntimeOptions configure the runtime API (store.RuntimeOptions).
type RuntimeOptions = store.RuntimeOptions

// Runtime implements store.Runtime on the DB. Reads on the hot path
// (validation, entitlement checks) go through a cache of decoded records
// that is checked against the stored bytes in the same read transaction, so
// it is never stale; writes go through group commit.
type Runtime struct {
	// RuntimeService is the orchestration of the runtime's changes, over
	// this runtime's group-committed writes (orchestration.go).
	store.RuntimeService
	db    *DB
	o     RuntimeOptions
	cache *decodeCache

	commits *groupCommit
	valid   *validCache
}

// Runtime returns the runtime store on db.
func (db *DB) Runtime(o RuntimeOptions) *Runtime {
	if o.SeenInterval == 0 {
		o.SeenInterval = 5 * time.Minute
	}
	r := &Runtime{db: db, o: o, cache: newDecodeCache(), commits: &groupCommit{db: db}, valid: newValidCache()}
	r.RuntimeService = store.NewRuntimeService(runtimeStorage{r}, db.Hasher, o)
	return r
}

// Cache tags: one per bucket whose records the decode cache holds.
const (
	tagApp uint8 = iota + 1
	tagPlan
	tagEnt
	tagLicense
	tagUser
	tagDevice
	tagSession
)

const cacheShards = 64

// maxShardEntries bounds the decode cache's memory (64 shards of 2,048
// records, a few hundred MB at worst): a full shard is simply emptied, which
// costs only decodes.
const maxShardEntries = 1 << 11

type cacheKey struct {
	tag uint8
	id  [16]byte
}

type cached struct {
	raw []byte
	v   any
}

// decodeCache maps a record to its decoded value together with the bytes it
// was decoded from. A hit is only used when those bytes equal the bytes in
// the current transaction, so an update is seen at once without any
// invalidation protocol; a miss decodes and replaces the entry. Cached values
// are shared and must be treated as read-only.
type decodeCache struct {
	shards [cacheShards]struct {
		mu sync.RWMutex
		m  map[cacheKey]*cached
	}
}

func newDecodeCache() *decodeCache {
	c := &decodeCache{}
	for i := range c.shards {
		c.shards[i].m = map[cacheKey]*cached{}
	}
	return c
}

// cachedGet returns the decoded record id of bucket, or nil when absent.
func cachedGet[T any](c *decodeCache, t *txn, tag uint8, bucket, id []byte) (*T, error) {
	if len(id) != 16 {
		return nil, nil
	}
	raw := t.tx.Bucket(bucket).Get(id)
	if raw == nil {
		return nil, nil
	}
	k := cacheKey{tag: tag}
	copy(k.id[:], id)
	sh := &c.shards[int(k.id[15])%cacheShards]
	sh.mu.RLock()
	e := sh.m[k]
	sh.mu.RUnlock()
	if e != nil && bytes.Equal(e.raw, raw) {
		return e.v.(*T), nil
	}
	v := new(T)
	if err := decode(bucket, id, raw, v); err != nil {
		return nil, err
	}
	sh.mu.Lock()
	if len(sh.m) >= maxShardEntries {
		clear(sh.m)
	}
	sh.m[k] = &cached{raw: clone(raw), v: v}
	sh.mu.Unlock()
	return v, nil
}

// ResolveApp implements store.Runtime.
func (r *Runtime) ResolveApp(ctx context.Context, c store.RuntimeClient) (*store.RuntimeApp, error) {
	var out *store.RuntimeApp
	err := r.db.view(ctx, func(t *txn) (err error) {
		out, err = r.resolve(t, c)
		return err
	})
	return out, err
}

func errInvalidApp() error {
	return store.ErrUnknownApp()
}

// resolve finds the application environment c names, disabled or not.
func (r *Runtime) resolve(t *txn, c store.RuntimeClient) (*store.RuntimeApp, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	var appID, envID []byte
	if c.PublicKey != "" {
		v := t.tx.Bucket(bAppsPubKey).Get([]byte(c.PublicKey))
		if len(v) != 32 {
			return nil, errInvalidApp()
		}
		appID, envID = v[:16], v[16:]
	} else {
		appID = idb(c.AppID)
	}
	a, err := cachedGet[store.Application](r.cache, t, tagApp, bApps, appID)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, errInvalidApp()
	}
	var env *store.Environment
	if envID != nil {
		env = a.EnvByID(ids(envID))
	} else {
		name, err := c.EnvName()
		if err != nil {
			return nil, err
		}
		env = a.Env(name)
	}
	if env == nil {
		return nil, errInvalidApp()
	}
	return &store.RuntimeApp{App: a, Env: env}, nil
}

// activeApp resolves c and refuses a disabled application.
func (r *Runtime) activeApp(t *txn, c store.RuntimeClient) (*store.RuntimeApp, error) {
	ra, err := r.resolve(t, c)
	if err != nil {
		return nil, err
	}
	if err := ra.App.CheckActive(); err != nil {
		return nil, err
	}
	return ra, nil
}

// licenseEntitlements appends the keys of the license's entitlements (its
// plan's and its own) to keys.
func (r *Runtime) licenseEntitlements(t *txn, l *store.License, keys []string) ([]string, error) {
	p, err := cachedGet[store.Plan](r.cache, t, tagPlan, bPlans, idb(l.PlanID))
	if err != nil {
		return nil, err
	}
	var idLists [2][]string
	if p != nil {
		idLists[0] = p.EntitlementIDs
	}
	idLists[1] = l.EntitlementIDs
	for _, list := range idLists {
		for _, id := range list {
			e, err := cachedGet[store.Entitlement](r.cache, t, tagEnt, bEnts, idb(id))
			if err != nil {
				return nil, err
			}
			if e != nil { // a deleted entitlement grants nothing
				keys = append(keys, e.Key)
			}
		}
	}
	return keys, nil
}

// userEntitlements is the union of the entitlements of the user's usable
// licenses on device deviceID: what a login session grants. A license with
// floating seats counts only while the device holds a live lease of it
// (docs/design.md §13); leaseEnds is when the first such lease ends, as the
// answer changes then with no write to tell (farFuture when none counts).
func (r *Runtime) userEntitlements(t *txn, envID, userID, deviceID string) (keys []string, leaseEnds time.Time, err error) {
	leaseEnds = farFuture
	for _, id := range t.all(bLicEnvUser, key(idb(envID), idb(userID))) {
		l, err := cachedGet[store.License](r.cache, t, tagLicense, bLicenses, idb(id))
		if err != nil {
			return nil, leaseEnds, err
		}
		if l == nil || l.UserID != userID {
			continue
		}
		if st := l.EffectiveStatus(t.now); st != store.LicenseActive && st != store.LicenseInactive {
			continue
		}
		p, err := r.leasePlan(t, l)
		if err != nil {
			return nil, leaseEnds, err
		}
		if p.MaxConcurrent > 0 {
			_, lease, err := t.liveLease(l.ID, deviceID)
			if err != nil {
				return nil, leaseEnds, err
			}
			if lease == nil {
				continue
			}
			leaseEnds = minTime(leaseEnds, lease.ExpiresAt)
		}
		if keys, err = r.licenseEntitlements(t, l, keys); err != nil {
			return nil, leaseEnds, err
		}
	}
	return store.KeySet(keys), leaseEnds, nil
}

// appendBuckets are keyed by UUIDv7 or time first, so hot writes append to
// their last page. bbolt splits pages half full by default, which suits
// random inserts but leaves append-only buckets half empty: twice the pages
// to write, read and keep.
var appendBuckets = [][]byte{bSessions, bSessionsDevice, bDevices, bDevicesEnv, bDevicesEnvStatus, bAudit, bAuditEnv, bAuditEvent}

// denseAppends fills the pages of append-mostly buckets in this write
// transaction (the setting lives on the transaction's bucket handles).
func denseAppends(t *txn) {
	for _, name := range appendBuckets {
		t.tx.Bucket(name).FillPercent = 0.9
	}
}

// OpenRuntime implements store.Backend.
func (db *DB) OpenRuntime(o store.RuntimeOptions) store.RuntimeBackend { return db.Runtime(o) }

var _ store.Backend = (*DB)(nil)

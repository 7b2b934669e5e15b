package antibot

import (
	"context"
	"sync"
	"time"
)

// MemoryUsedStore is a UsedStore in memory: for tests and for a single
// process that accepts forgetting spent challenges on restart (a restart
// lets each solution in flight be used at most once more).
type MemoryUsedStore struct {
	now func() time.Time

	mu        sync.Mutex
	used      map[string]time.Time
	nextPrune time.Time
}

var _ UsedStore = (*MemoryUsedStore)(nil)

// pruneEvery spaces out the sweeps of expired keys, so that UseOnce stays
// O(1) amortized however many challenges are live.
const pruneEvery = time.Minute

// NewMemoryUsedStore returns an empty MemoryUsedStore using the wall clock
// to forget expired keys.
func NewMemoryUsedStore() *MemoryUsedStore {
	return &MemoryUsedStore{now: time.Now, used: make(map[string]time.Time)}
}

// UseOnce implements UsedStore.
func (s *MemoryUsedStore) UseOnce(ctx context.Context, key string, expires time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !now.Before(s.nextPrune) {
		for k, exp := range s.used {
			if !now.Before(exp) {
				delete(s.used, k)
			}
		}
		s.nextPrune = now.Add(pruneEvery)
	}
	if _, ok := s.used[key]; ok {
		return false, nil
	}
	s.used[key] = expires
	return true, nil
}

// Len returns the number of keys remembered, expired ones not yet swept
// included.
func (s *MemoryUsedStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.used)
}

package bolt

import (
	"context"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

var _ store.StatsReporter = (*DB)(nil)

// histogram accumulates observations into fixed buckets.
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	count  uint64
	sum    float64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.mu.Lock()
	h.counts[i]++
	h.count++
	h.sum += v
	h.mu.Unlock()
}

func (h *histogram) snapshot() store.Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := store.Histogram{Bounds: h.bounds, Counts: make([]uint64, len(h.bounds)), Count: h.count, Sum: h.sum}
	var acc uint64
	for i := range h.bounds {
		acc += h.counts[i]
		out.Counts[i] = acc
	}
	return out
}

// commitStats describe the group commits of runtime writes.
type commitStats struct {
	size    *histogram
	seconds *histogram
}

func newCommitStats() *commitStats {
	return &commitStats{
		size:    newHistogram(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
		seconds: newHistogram(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1),
	}
}

// sessionCountTTL is how long a session count is reused: counting walks the
// pages of the sessions bucket, too much for every scrape.
const sessionCountTTL = time.Minute

// sessionCount caches the number of session records.
type sessionCount struct {
	mu  sync.Mutex
	at  time.Time
	val int
}

// Stats implements store.StatsReporter.
func (db *DB) Stats(ctx context.Context) (store.Stats, error) {
	out := store.Stats{GroupCommitSize: db.commits.size.snapshot(), GroupCommitSeconds: db.commits.seconds.snapshot()}
	db.sessions.mu.Lock()
	defer db.sessions.mu.Unlock()
	fresh := !db.sessions.at.IsZero() && time.Since(db.sessions.at) < sessionCountTTL
	err := db.bolt.View(func(tx *bolt.Tx) error {
		out.SizeBytes = tx.Size()
		if !fresh {
			db.sessions.val = tx.Bucket(bSessions).Stats().KeyN
			db.sessions.at = time.Now()
		}
		return ctx.Err()
	})
	out.Sessions = db.sessions.val
	return out, err
}

package store

import (
	"context"
	"sync"
	"time"
)

// Stats are what a backend reports about itself for an operator's metrics.
type Stats struct {
	// SizeBytes is the size of the database (for a file, of the file; on
	// PostgreSQL, of the whole database).
	SizeBytes int64
	// Sessions counts runtime sessions on record: live ones, and ended ones
	// (revoked, idle) until they are swept after their absolute lifetime.
	Sessions int
	// GroupCommitSize is writes per shared commit of runtime hot writes;
	// GroupCommitSeconds the time of each such commit. On PostgreSQL, which
	// commits each transaction alone, every write transaction is a commit
	// of one, and its time that of its COMMIT (the WAL flush).
	GroupCommitSize, GroupCommitSeconds Histogram
}

// Histogram is a cumulative distribution, as Prometheus exposes one:
// Counts[i] observations were at most Bounds[i].
type Histogram struct {
	Bounds []float64
	Counts []uint64
	Count  uint64
	Sum    float64
}

// StatsReporter is implemented by backends that report Stats. Stats is
// called at every metrics scrape, so it must be cheap.
type StatsReporter interface {
	Stats(ctx context.Context) (Stats, error)
}

// SessionCountTTL is how long a store reuses its count of sessions for
// Stats: counting them walks them all, too much for every scrape, and the
// figure is a metric, read by no decision.
const SessionCountTTL = time.Minute

// SessionCount caches a store's count of sessions for Stats.
type SessionCount struct {
	mu  sync.Mutex
	at  time.Time
	val int
}

// Get returns the count, taking a new one from count when the cached one is
// SessionCountTTL old at now, or there is none. A failed count keeps the
// cached one.
func (c *SessionCount) Get(now time.Time, count func() (int, error)) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && now.Sub(c.at) < SessionCountTTL {
		return c.val, nil
	}
	n, err := count()
	if err != nil {
		return c.val, err
	}
	c.val, c.at = n, now
	return n, nil
}

// CommitStats accumulate the commits a store reports as GroupCommitSize and
// GroupCommitSeconds.
type CommitStats struct {
	size, seconds *observer
}

// NewCommitStats returns empty commit statistics.
func NewCommitStats() *CommitStats {
	return &CommitStats{
		size:    newObserver(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
		seconds: newObserver(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1),
	}
}

// Observe records one commit of writes writes that took d.
func (c *CommitStats) Observe(writes int, d time.Duration) {
	c.size.observe(float64(writes))
	c.seconds.observe(d.Seconds())
}

// Fill sets st's commit histograms.
func (c *CommitStats) Fill(st *Stats) {
	st.GroupCommitSize, st.GroupCommitSeconds = c.size.snapshot(), c.seconds.snapshot()
}

// observer accumulates observations into fixed buckets.
type observer struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	count  uint64
	sum    float64
}

func newObserver(bounds ...float64) *observer {
	return &observer{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *observer) observe(v float64) {
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

func (h *observer) snapshot() Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := Histogram{Bounds: h.bounds, Counts: make([]uint64, len(h.bounds)), Count: h.count, Sum: h.sum}
	var acc uint64
	for i := range h.bounds {
		acc += h.counts[i]
		out.Counts[i] = acc
	}
	return out
}

package store

import "context"

// Stats are what a backend reports about itself for an operator's metrics.
type Stats struct {
	// SizeBytes is the size of the database (for a file, of the file; on
	// PostgreSQL, of the whole database).
	SizeBytes int64
	// Sessions counts runtime sessions on record: live ones, and ended ones
	// (revoked, idle) until they are swept after their absolute lifetime.
	Sessions int
	// GroupCommitSize is writes per shared commit of runtime hot writes;
	// GroupCommitSeconds the time of each such commit. Both are bbolt's
	// (its single writer's group commit) and empty on PostgreSQL.
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

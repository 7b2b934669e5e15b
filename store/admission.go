package store

import (
	"context"
	"time"
)

type writeWaitKey struct{}

// WithWriteWaitSince returns ctx telling the store that its write began to
// wait at since: a server's write admission (docs/design.md §14) let it
// wait there first, and one bound, the store's MaxQueueWait, covers the
// whole wait, the admission's and the writer's.
func WithWriteWaitSince(ctx context.Context, since time.Time) context.Context {
	return context.WithValue(ctx, writeWaitKey{}, since)
}

// WriteWaitSince is when the write of ctx began to wait for the writer:
// the time WithWriteWaitSince gave, else now.
func WriteWaitSince(ctx context.Context) time.Time {
	if t, ok := ctx.Value(writeWaitKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

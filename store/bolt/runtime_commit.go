package bolt

import (
	"context"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// groupCommit runs hot runtime writes in shared transactions. It replaces
// bbolt's DB.Batch for them, keeping its contract (closures may run more
// than once, so they must be idempotent and free of side effects; a closure
// that fails is retried alone so that it cannot fail the others) but not its
// timer: DB.Batch closes a batch MaxBatchDelay after its first call, whether
// or not the writer is free, so under load many small batches queue up on
// the write lock, each paying a commit and an fsync. Here a batch is simply
// everything that arrived while the previous commit was running: no delay
// when idle, and batches that grow with the load.
type groupCommit struct {
	db      *DB
	mu      sync.Mutex
	pending []*commitCall
	running bool
}

type commitCall struct {
	ctx    context.Context
	fn     func(t *txn) error
	done   chan error
	queued time.Time // when it asked for the writer (docs/design.md §14)
}

// maxGroup bounds one transaction, like DB.MaxBatchSize.
const maxGroup = 1000

// do runs fn in a shared write transaction and returns once it committed.
func (g *groupCommit) do(ctx context.Context, fn func(t *txn) error) error {
	c := &commitCall{ctx: ctx, fn: fn, done: make(chan error, 1), queued: store.WriteWaitSince(ctx)}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go g.loop()
	}
	g.mu.Unlock()
	return <-c.done
}

// loop commits batches until nothing is pending.
func (g *groupCommit) loop() {
	for {
		g.mu.Lock()
		n := min(len(g.pending), maxGroup)
		if n == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		batch := g.pending[:n:n]
		g.pending = append([]*commitCall(nil), g.pending[n:]...)
		g.mu.Unlock()
		g.run(batch)
	}
}

// run commits batch; a failing call is taken out and run in a transaction
// of its own, and the others are retried together. A call that waited for
// the writer longer than the store allows is refused unrun.
func (g *groupCommit) run(batch []*commitCall) {
	g.db.writer.hold()
	defer g.db.writer.release()
	live := batch[:0]
	for _, c := range batch {
		if g.db.writer.expired(c.queued) {
			c.done <- store.ErrOverloaded()
			continue
		}
		live = append(live, c)
	}
	batch = live
	for len(batch) > 0 {
		failed := -1
		start := time.Now()
		err := g.db.bolt.Update(func(tx *bolt.Tx) error {
			now := g.db.Clock()
			for i, c := range batch {
				if err := safeCall(g.db, c, tx, now); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			err = g.db.commitErr(err)
			g.db.commits.Observe(len(batch), time.Since(start))
			for _, c := range batch {
				c.done <- err
			}
			return
		}
		c := batch[failed]
		batch = append(batch[:failed:failed], batch[failed+1:]...)
		c.done <- g.db.commitErr(g.db.bolt.Update(func(tx *bolt.Tx) error { return safeCall(g.db, c, tx, g.db.Clock()) }))
	}
}

// safeCall runs one closure, turning a panic into an error as DB.Batch does.
func safeCall(db *DB, c *commitCall, tx *bolt.Tx, now time.Time) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in write transaction: %v", p)
		}
	}()
	return c.fn(&txn{tx: tx, ctx: c.ctx, now: now, db: db})
}

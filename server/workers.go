package server

import (
	"context"
	"time"
)

// Background work has one shape: a worker with Run(ctx) that returns once
// ctx ends, leaving its work durable. Building the server only lists the
// workers (s.workers); Open starts them and Close stops them, last started
// first, before the store closes.
type worker interface {
	Run(ctx context.Context) error
}

// namedWorker is a worker with the name its failures are logged under.
type namedWorker struct {
	name string
	worker
}

// periodic runs fn every interval: at start too when atStart, and once more
// on stop when atStop, so that counts kept in memory are written before the
// store closes.
type periodic struct {
	interval        time.Duration
	fn              func(ctx context.Context)
	atStart, atStop bool
}

// Run implements worker.
func (p periodic) Run(ctx context.Context) error {
	if p.atStart {
		p.fn(ctx)
	}
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.fn(ctx)
		case <-ctx.Done():
			if p.atStop {
				// The server is closing: this last run must not be cut short
				// by the cancellation that asked for it.
				p.fn(context.WithoutCancel(ctx))
			}
			return nil
		}
	}
}

// listWorkers is every worker of the server, in the order Open starts them
// (Close stops them in reverse): the runtime's flushers first, so they
// stop last, after everything that could still count.
func (s *Server) listWorkers() []namedWorker {
	return []namedWorker{
		{"flush last seen", periodic{interval: 30 * time.Second, atStop: true, fn: s.flushSeen}},
		{"flush runtime usage", periodic{interval: 10 * time.Second, atStop: true, fn: s.flushUsage}},
		{"sweep sessions and nonces", periodic{interval: time.Minute, fn: s.sweepSessions}},
		{"billing sweeper", &billingSweeper{store: s.db, interval: billingSweepInterval, logger: s.logger, changed: s.rt.usage.planChanged}},
		{"license expiry", periodic{interval: sweepEvery, atStart: true, fn: s.expireLicenses}},
		{"account mail", s.mailq},
		{"webhook dispatcher", s.dispatcher},
		{"audit retention", periodic{interval: retentionEvery, atStart: true, fn: s.pruneAudit}},
	}
}

// startWorkers starts every listed worker; each one's stop goes to s.bg.
func (s *Server) startWorkers() {
	for _, w := range s.workers {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := w.Run(ctx); err != nil {
				s.logger.Error("background worker stopped", "worker", w.name, "err", err)
			}
		}()
		s.bg = append(s.bg, func() { cancel(); <-done })
	}
}

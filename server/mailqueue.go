package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"licensectl/store"
)

// Account mail (verification, password reset, "you already have an
// account") is sent outside the request, by one worker: the answer of
// resend-verification and forgot-password then costs the same whether or
// not the address has an account (docs/design.md §8: no timing oracle), and a slow
// mail server slows no request. Each address gets at most mailsPerAddress
// mails per mailWindow, whoever asks and whichever server is asked: the
// count lives in the store (docs/design.md §12, "Shared counters"); the
// answers do not change when a mail is held back. Close drains the queue
// before the store closes.

const (
	mailsPerAddress = 3
	mailWindow      = 10 * time.Minute
	mailQueueSize   = 1024
)

// mailJob is the work of one queued mail: it may look the account up,
// issue a token and send.
type mailJob func(ctx context.Context)

type mailQueue struct {
	jobs    chan mailJob
	perAddr *sharedLimiter
	pending sync.WaitGroup
	logger  *slog.Logger
}

// newMailQueue caps mail per address whether or not request rate limits
// are on: ratelimit.enabled switches off limits on requests, and the cap
// guards the address's owner, not the server (docs/design.md §8).
func newMailQueue(counters store.Counters, logger *slog.Logger) *mailQueue {
	return &mailQueue{jobs: make(chan mailJob, mailQueueSize), logger: logger,
		perAddr: newSharedLimiter(counters, "mail", mailsPerAddress, mailWindow)}
}

// enqueue queues job for the address addr, unless the queue is full
// (logged, not told to the caller). The worker counts the mail against the
// address's share before it runs the job, so the request pays no trip to
// the store for it.
func (q *mailQueue) enqueue(addr string, job mailJob) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	q.pending.Add(1)
	select {
	case q.jobs <- func(ctx context.Context) {
		if q.allowed(ctx, addr) {
			job(ctx)
		}
	}:
	default:
		q.pending.Done()
		q.logger.Error("account mail dropped: the queue is full")
	}
}

// allowed counts one mail to addr, or holds it back (logged) when the
// address had its share. When the store cannot count, the mail is held
// back too: the cap guards the address's owner from a flood, which a
// failing store must not open.
func (q *mailQueue) allowed(ctx context.Context, addr string) bool {
	st, err := q.perAddr.Allow(ctx, addr)
	if err != nil {
		q.logger.Error("account mail held back: the mail cap could not be counted", "err", err)
		return false
	}
	if !st.ok {
		q.logger.Info("account mail held back: the address had its share", "retry_after_s", st.retryAfter())
	}
	return st.ok
}

// Run sends queued mail until ctx ends, then sends what is still queued.
func (q *mailQueue) Run(ctx context.Context) error {
	for {
		select {
		case job := <-q.jobs:
			q.run(job)
		case <-ctx.Done():
			for {
				select {
				case job := <-q.jobs:
					q.run(job)
				default:
					return nil
				}
			}
		}
	}
}

func (q *mailQueue) run(job mailJob) {
	defer q.pending.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	job(ctx)
}

// WaitMail blocks until every account mail queued so far has been handled;
// tests read the mail directory after it.
func (s *Server) WaitMail() { s.mailq.pending.Wait() }

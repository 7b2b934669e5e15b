package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"licensectl/server/mail"
	"licensectl/store"
)

// Per-address mail cap (design §8): at most mailCapCount account mails to
// one address per mailCapWindow, whatever asks for them.
const (
	mailCapCount  = 3
	mailCapWindow = 10 * time.Minute
	// mailQueueSize bounds the mails waiting to be sent; beyond it a mail is
	// dropped and logged, never a reason to answer differently.
	mailQueueSize = 1024
)

// mailJob is one account mail to send. build runs in the queue's worker:
// it issues the token (if any) and says whether there is a mail at all (an
// unknown address has none), so the request that queued it did the same
// work whether or not the address is registered.
type mailJob struct {
	addr  string // normalised address, the key of the per-address cap
	build func(ctx context.Context) (mail.Message, bool, error)
}

// mailQueue sends account mails outside the requests that ask for them:
// signup, resend-verification, forgot-password and partner sign-in only
// queue a job, so their answers take the same time and carry the same bytes
// for every address.
type mailQueue struct {
	jobs    chan mailJob
	pending atomic.Int64 // queued or in hand
	perAddr *limiter
	sender  mail.Sender
	logger  *slog.Logger
	drain   time.Duration // how long Run may spend on the backlog at stop
}

func newMailQueue(sender mail.Sender, now store.Clock, logger *slog.Logger, drain time.Duration) *mailQueue {
	return &mailQueue{jobs: make(chan mailJob, mailQueueSize), perAddr: newLimiter(mailCapCount, mailCapWindow, now),
		sender: sender, logger: logger, drain: drain}
}

// enqueue queues j without waiting.
func (q *mailQueue) enqueue(j mailJob) {
	q.pending.Add(1)
	select {
	case q.jobs <- j:
	default:
		q.pending.Add(-1)
		q.logger.Error("account mail queue full; mail dropped")
	}
}

// Run sends queued mails until ctx ends, then sends the backlog (for at most
// the drain time) and returns.
func (q *mailQueue) Run(ctx context.Context) error {
	for {
		select {
		case j := <-q.jobs:
			q.handle(ctx, j)
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.drain)
			defer cancel()
			for {
				select {
				case j := <-q.jobs:
					q.handle(dctx, j)
				default:
					return nil
				}
			}
		}
	}
}

// handle sends one job's mail unless its address is over the cap. Failures
// are logged: the answer went out already, and the user can ask again.
func (q *mailQueue) handle(ctx context.Context, j mailJob) {
	defer q.pending.Add(-1)
	if st := q.perAddr.Allow(j.addr); !st.ok {
		q.logger.Info("account mail not sent: address over its cap", "cap", mailCapCount, "window", mailCapWindow.String())
		return
	}
	m, ok, err := j.build(ctx)
	if err != nil || !ok {
		q.perAddr.Undo(j.addr)
		if err != nil {
			q.logger.Error("prepare account mail", "err", err)
		}
		return
	}
	if err := q.sender.Send(ctx, m); err != nil {
		q.logger.Error("send account mail", "subject", m.Subject, "err", err)
	}
}

// idle reports whether nothing is queued or being sent.
func (q *mailQueue) idle() bool { return q.pending.Load() == 0 }

// FlushMail waits until every account mail queued so far has been handled
// (sent, capped or failed), or ctx ends. Tests read mails after it.
func (s *Server) FlushMail(ctx context.Context) error {
	if s.acct == nil || s.acct.mail == nil {
		return nil
	}
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for !s.acct.mail.idle() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// startMailQueue runs the account mail queue until Close.
func (s *Server) startMailQueue() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.acct.mail.Run(ctx); err != nil {
			s.logger.Error("account mail queue", "err", err)
		}
	}()
	s.bg = append(s.bg, func() { cancel(); <-done })
}

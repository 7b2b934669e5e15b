package webhook

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"licensectl/store"
)

// perEndpoint is how many sends one endpoint may have in flight (1 while its
// last attempt timed out), so one slow receiver holds at most two workers.
const perEndpoint = 2

// pollEvery is how often the dispatcher looks for due work without a wake-up:
// retries come due by the clock, and a lost wake-up must not strand a delivery.
const pollEvery = time.Second

// expandEvery is how many outbox events one expansion takes.
const expandEvery = 200

// pingWait bounds how long a test ping waits for room within the bounds.
const pingWait = 2 * time.Second

// Config configures a Dispatcher.
type Config struct {
	// Owner names this dispatcher's leases; unique per process.
	Owner   string
	Workers int
	Policy  store.RetryPolicy
	// Lease is how long a claim holds: longer than a send (webhooks.timeout)
	// and its record, so a live dispatcher never loses a claim.
	Lease time.Duration
	// Drain bounds how long Run waits for sends in flight when stopped.
	Drain time.Duration
	// OnAttempt, when set, sees every recorded attempt and its delivery
	// (metrics, the log of failures).
	OnAttempt func(*store.DeliveryJob, store.Attempt)
}

// Dispatcher works the outbox: it expands events into deliveries, claims due
// deliveries with a lease, sends them with bounded concurrency and records
// each attempt.
type Dispatcher struct {
	out    store.Outbox
	send   *Sender
	cfg    Config
	logger *slog.Logger

	mu       sync.Mutex
	inflight int // sends and pings in flight
	// sending holds the deliveries of the sends in flight, until their
	// attempt is recorded.
	sending map[string]bool
	freed   chan struct{}
}

// NewDispatcher builds a dispatcher; it does nothing until Run.
func NewDispatcher(out store.Outbox, send *Sender, cfg Config, logger *slog.Logger) *Dispatcher {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Owner == "" {
		cfg.Owner = store.NewID()
	}
	return &Dispatcher{out: out, send: send, cfg: cfg, logger: logger, sending: map[string]bool{}, freed: make(chan struct{}, 1)}
}

// claim is the bounds of docs/design.md §9 for n free workers.
func (d *Dispatcher) claim(n int) store.Claim {
	return store.Claim{Owner: d.cfg.Owner, Limit: n, PerEndpoint: perEndpoint, PerApp: max(1, d.cfg.Workers/2), Lease: d.cfg.Lease}
}

// Run dispatches until ctx ends, then waits up to Drain for the sends in
// flight and cancels the rest. An interrupted send is not recorded: its
// lease is given back, and the delivery is sent again (here, after a
// restart). A dispatcher that dies without stopping leaves its leases to
// run out.
func (d *Dispatcher) Run(ctx context.Context) error {
	sendCtx, cancelSends := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSends()
	var wg sync.WaitGroup
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		more := d.expand(ctx)
		d.fill(ctx, sendCtx, &wg)
		if more {
			continue
		}
		select {
		case <-ctx.Done():
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(d.cfg.Drain):
				cancelSends()
				<-done
			}
			return nil
		case <-d.out.Enqueued():
		case <-d.freed:
		case <-tick.C:
		}
	}
}

// expand turns a batch of outbox events into deliveries and reports whether
// more wait.
func (d *Dispatcher) expand(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	n, err := d.out.ExpandEvents(ctx, expandEvery)
	if err != nil {
		d.logger.Error("webhook dispatcher: expanding outbox events", "err", err)
		return false
	}
	// A batch may stop short of expandEvery at the store's bound on the
	// deliveries one transaction writes: ask again until nothing is left.
	return n > 0
}

// take reserves up to n workers and reports how many it got.
func (d *Dispatcher) take(n int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n = min(n, d.cfg.Workers-d.inflight)
	if n < 0 {
		n = 0
	}
	d.inflight += n
	return n
}

// give returns n workers.
func (d *Dispatcher) give(n int) {
	d.mu.Lock()
	d.inflight -= n
	d.mu.Unlock()
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

// fill starts sends for due deliveries while workers are free.
func (d *Dispatcher) fill(ctx, sendCtx context.Context, wg *sync.WaitGroup) {
	if ctx.Err() != nil {
		return
	}
	free := d.take(d.cfg.Workers)
	if free == 0 {
		return
	}
	jobs, err := d.out.ClaimDue(ctx, d.send.Now(), d.claim(free))
	if err != nil {
		d.logger.Error("webhook dispatcher: claiming due deliveries", "err", err)
	}
	jobs = d.fresh(jobs)
	if unused := free - len(jobs); unused > 0 {
		d.mu.Lock()
		d.inflight -= unused
		d.mu.Unlock()
	}
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.give(1)
			defer d.sent(job.Delivery.ID)
			a := d.send.Send(sendCtx, job)
			if sendCtx.Err() != nil {
				// Cut short by the stop: the lease goes back, so that the
				// delivery is sent again at once, by another server on the
				// same database or after the restart, not when it runs out.
				if err := d.out.ReleaseClaim(context.WithoutCancel(ctx), job.Delivery.ID, d.cfg.Owner); err != nil {
					d.logger.Error("webhook dispatcher: giving back a claim", "delivery", job.Delivery.ID, "err", err)
				}
				return
			}
			d.record(job, a)
		}()
	}
}

// fresh drops the jobs whose delivery this dispatcher is sending already:
// a lease that ran out under a slow send or record (or a clock moved past
// it) must not make one dispatcher send a delivery twice at once. The send
// in flight records its attempt, which ends the renewed lease as well.
func (d *Dispatcher) fresh(jobs []*store.DeliveryJob) []*store.DeliveryJob {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := jobs[:0]
	for _, j := range jobs {
		if d.sending[j.Delivery.ID] {
			continue
		}
		d.sending[j.Delivery.ID] = true
		out = append(out, j)
	}
	return out
}

// sent forgets a delivery whose attempt is recorded (or given back).
func (d *Dispatcher) sent(id string) {
	d.mu.Lock()
	delete(d.sending, id)
	d.mu.Unlock()
}

// record stores an attempt's outcome.
func (d *Dispatcher) record(job *store.DeliveryJob, a store.Attempt) {
	if err := d.out.RecordAttempt(context.Background(), job.Delivery.ID, a, d.cfg.Policy); err != nil {
		d.logger.Error("webhook dispatcher: recording an attempt", "delivery", job.Delivery.ID, "err", err)
		return
	}
	if d.cfg.OnAttempt != nil {
		d.cfg.OnAttempt(job, a)
	}
}

// Ping sends a test delivery to the endpoint at once, outside the queue, and
// records it. It counts against the bounds of queued sends: it takes a
// worker and a lease within the endpoint's and the application's bounds,
// waiting up to pingWait for room; past that the store's conflict is the
// answer.
func (d *Dispatcher) Ping(ctx context.Context, ref store.AppRef, webhookID string) (*store.DeliveryJob, store.Attempt, error) {
	wait := time.NewTimer(pingWait)
	defer wait.Stop()
	var busy error = store.Errorf(store.ECodeConflict, "all %d webhook workers (webhooks.workers) are busy: ping again when a send ends", d.cfg.Workers)
	for {
		if d.take(1) == 1 {
			job, err := d.out.TestDelivery(ctx, ref, webhookID, d.send.Now(), d.claim(1))
			if err == nil {
				defer d.give(1)
				a := d.send.Send(ctx, job)
				d.record(job, a)
				return job, a, nil
			}
			d.give(1)
			if store.ErrorCode(err) != store.ECodeConflict {
				return nil, store.Attempt{}, err
			}
			busy = err
		}
		select {
		case <-ctx.Done():
			return nil, store.Attempt{}, ctx.Err()
		case <-wait.C:
			return nil, store.Attempt{}, busy
		case <-time.After(50 * time.Millisecond):
		}
	}
}

package webhook

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"licensectl/store"
)

// perEndpoint is how many sends one endpoint may have in flight, so one slow
// receiver holds at most two workers and cannot starve the rest.
const perEndpoint = 2

// pollEvery is how often the dispatcher looks for due work without a wake-up:
// retries come due by the clock, and a lost wake-up must not strand a delivery.
const pollEvery = time.Second

// Config configures a Dispatcher.
type Config struct {
	Workers int
	Policy  store.RetryPolicy
	// Drain bounds how long Run waits for sends in flight when stopped.
	Drain time.Duration
	// OnAttempt, when set, sees every recorded attempt and its delivery
	// (metrics, the log of failures).
	OnAttempt func(*store.DeliveryJob, store.Attempt)
}

// Dispatcher works the outbox: it claims due deliveries, sends them with
// bounded concurrency and records each attempt.
type Dispatcher struct {
	out    store.Outbox
	send   *Sender
	cfg    Config
	logger *slog.Logger

	mu       sync.Mutex
	inflight map[string]bool // delivery ids being sent
	busy     map[string]int  // endpoint id → sends in flight
	freed    chan struct{}
}

// NewDispatcher builds a dispatcher; it does nothing until Run.
func NewDispatcher(out store.Outbox, send *Sender, cfg Config, logger *slog.Logger) *Dispatcher {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	return &Dispatcher{out: out, send: send, cfg: cfg, logger: logger,
		inflight: map[string]bool{}, busy: map[string]int{}, freed: make(chan struct{}, 1)}
}

// Run dispatches until ctx ends, then waits up to Drain for the sends in
// flight and cancels the rest. An interrupted send is not recorded: the
// delivery stays due, and the next start sends it again.
func (d *Dispatcher) Run(ctx context.Context) error {
	sendCtx, cancelSends := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSends()
	var wg sync.WaitGroup
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		d.fill(ctx, sendCtx, &wg)
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

// fill starts sends for due deliveries while workers are free.
func (d *Dispatcher) fill(ctx, sendCtx context.Context, wg *sync.WaitGroup) {
	d.mu.Lock()
	free := d.cfg.Workers - len(d.inflight)
	busy, skip := maps.Clone(d.busy), maps.Clone(d.inflight)
	d.mu.Unlock()
	if free <= 0 || ctx.Err() != nil {
		return
	}
	jobs, err := d.out.DueDeliveries(ctx, d.send.Now(), free, perEndpoint, busy, skip)
	if err != nil {
		d.logger.Error("webhook dispatcher: reading due deliveries", "err", err)
		return
	}
	for _, job := range jobs {
		d.mu.Lock()
		d.inflight[job.Delivery.ID] = true
		d.busy[job.Delivery.WebhookID]++
		d.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.release(job)
			a := d.send.Send(sendCtx, job)
			if sendCtx.Err() != nil {
				return
			}
			d.record(job, a)
		}()
	}
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

func (d *Dispatcher) release(job *store.DeliveryJob) {
	d.mu.Lock()
	delete(d.inflight, job.Delivery.ID)
	if d.busy[job.Delivery.WebhookID]--; d.busy[job.Delivery.WebhookID] <= 0 {
		delete(d.busy, job.Delivery.WebhookID)
	}
	d.mu.Unlock()
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

// Ping sends a test delivery at once, outside the queue, and records it.
func (d *Dispatcher) Ping(ctx context.Context, job *store.DeliveryJob) store.Attempt {
	a := d.send.Send(ctx, job)
	d.record(job, a)
	return a
}

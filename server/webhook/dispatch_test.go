package webhook_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/server/webhook"
	"licensectl/store"
	"licensectl/store/bolt"
)

// fakeClock is a settable clock shared by the store and the dispatchers.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// hits is a receiver that counts each webhook-id it is sent; while hold is
// set it keeps requests until their sender gives up.
type hits struct {
	mu   sync.Mutex
	n    map[string]int
	hold atomic.Bool
	srv  *httptest.Server
}

func newHits(t *testing.T) *hits {
	h := &hits{n: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		h.n[r.Header.Get("webhook-id")]++
		h.mu.Unlock()
		if h.hold.Load() {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hits) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, v := range h.n {
		out[k] = v
	}
	return out
}

// since lists the deliveries first heard after the counts before.
func (h *hits) since(before map[string]int) map[string]bool {
	out := map[string]bool{}
	for id := range h.counts() {
		if _, ok := before[id]; !ok {
			out[id] = true
		}
	}
	return out
}

// each reports whether every delivery of ids was heard n times.
func (h *hits) each(ids map[string]bool, n int) bool {
	c := h.counts()
	for id := range ids {
		if c[id] != n {
			return false
		}
	}
	return true
}

// dispatcher runs a dispatcher named owner on out until the returned stop.
func dispatcher(t *testing.T, out store.Outbox, clock *fakeClock, owner string, lease time.Duration) (stop func()) {
	sender := &webhook.Sender{Client: &http.Client{Timeout: 5 * time.Second}, UserAgent: "licensectl/test", Now: clock.now}
	d := webhook.NewDispatcher(out, sender, webhook.Config{Owner: owner, Workers: 8, Lease: lease, Drain: time.Millisecond,
		Policy: store.RetryPolicy{Schedule: []time.Duration{time.Hour}}}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// killable is the store as a dispatcher's process sees it: once killed,
// nothing the dispatcher still calls reaches the store (a killed process
// gives no claim back).
type killable struct {
	store.Outbox
	dead atomic.Bool
}

func (k *killable) ReleaseClaim(ctx context.Context, id, owner string) error {
	if k.dead.Load() {
		return nil
	}
	return k.Outbox.ReleaseClaim(ctx, id, owner)
}

// watched is the store as one dispatcher sees it, with two wake channels
// for the test: claims hears the deliveries of every claim it makes, and
// poke wakes it as a commit would, so a test waits for the claim it means
// rather than for the dispatcher's one-second poll.
type watched struct {
	store.Outbox
	wake   chan struct{}
	claims chan []string
}

func watch(t *testing.T, out store.Outbox) *watched {
	w := &watched{Outbox: out, wake: make(chan struct{}, 1), claims: make(chan []string, 1024)}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case <-out.Enqueued():
				w.poke()
			case <-done:
				return
			}
		}
	}()
	return w
}

func (w *watched) Enqueued() <-chan struct{} { return w.wake }

func (w *watched) ClaimDue(ctx context.Context, now time.Time, c store.Claim) ([]*store.DeliveryJob, error) {
	jobs, err := w.Outbox.ClaimDue(ctx, now, c)
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		ids = append(ids, j.Delivery.ID)
	}
	select {
	case w.claims <- ids:
	default:
	}
	return jobs, err
}

// poke wakes the dispatcher as a commit that queued deliveries does.
func (w *watched) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// claim waits for the dispatcher's next claim and returns what it leased.
func (w *watched) claim(t *testing.T) []string {
	t.Helper()
	select {
	case ids := <-w.claims:
		return ids
	case <-time.After(10 * time.Second):
		t.Fatal("the dispatcher made no claim in 10 s")
		return nil
	}
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 200 {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestTwoDispatchersOneStore: two dispatchers work one store. Neither sends
// a delivery the other holds while the lease holds; when one is killed in
// the middle of its sends, the other sends what it held once the lease has
// run out; one that stops gives back what it held, sent at once.
func TestTwoDispatchersOneStore(t *testing.T) {
	clock := &fakeClock{}
	clock.ns.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	db, err := bolt.Open(filepath.Join(t.TempDir(), "licensectl.db"), bolt.Options{Clock: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Org"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "App"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: org.ID, AppID: app.ID}
	rc := newHits(t)
	for range 3 {
		if _, err := db.CreateWebhook(ctx, ref, rc.srv.URL, []string{"plan.created"}); err != nil {
			t.Fatal(err)
		}
	}
	seq := 0
	plans := func(t *testing.T, n int) {
		t.Helper()
		for range n {
			seq++
			name := fmt.Sprintf("Plan %d", seq)
			if _, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: &name}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const lease = time.Minute

	t.Run("OKNoDeliverySentTwice", func(t *testing.T) {
		dispatcher(t, db, clock, "a", lease)
		dispatcher(t, db, clock, "b", lease)
		plans(t, 20) // 60 deliveries
		eventually(t, "60 deliveries", func() bool { return len(rc.counts()) == 60 })
		// Once every delivery is recorded, neither dispatcher can claim one
		// again: a second send could only come from a second claim while
		// it was pending (no fixed wait for a duplicate that "would" come).
		eventually(t, "every delivery recorded", func() bool {
			n, _, err := db.OutboxStats(ctx)
			return err == nil && n == 0
		})
		for id, n := range rc.counts() {
			if n != 1 {
				t.Fatalf("delivery %s sent %d times", id, n)
			}
		}
	})

	t.Run("OKKilledDispatchersClaimsAfterLease", func(t *testing.T) {
		before := rc.counts()
		rc.hold.Store(true)
		a := &killable{Outbox: db}
		stopA := dispatcher(t, a, clock, "a", lease)
		plans(t, 1) // 3 deliveries, one per endpoint
		eventually(t, "a's three sends in flight", func() bool { return len(rc.counts()) == len(before)+3 })
		a.dead.Store(true)
		stopA() // its sends are cut short, and neither recorded nor given back: the leases stay
		rc.hold.Store(false)
		held := rc.since(before)
		b := watch(t, db)
		dispatcher(t, b, clock, "b", lease)
		// b claims as it starts: what a's leases hold is not in it.
		for _, id := range b.claim(t) {
			if _, ok := held[id]; ok {
				t.Fatalf("b claimed delivery %s while a's lease held it", id)
			}
		}
		for id := range held {
			if n := rc.counts()[id]; n != 1 {
				t.Fatalf("delivery %s sent %d times while a's lease held", id, n)
			}
		}
		clock.advance(lease + time.Second)
		b.poke() // rather than wait for its next poll
		eventually(t, "b sends what a held", func() bool { return rc.each(held, 2) })
		eventually(t, "the queue empty", func() bool {
			n, _, err := db.OutboxStats(ctx)
			return err == nil && n == 0
		})
	})

	t.Run("OKStoppedDispatcherGivesBack", func(t *testing.T) {
		before := rc.counts()
		rc.hold.Store(true)
		stopA := dispatcher(t, db, clock, "a", lease)
		plans(t, 1)
		eventually(t, "a's three sends in flight", func() bool { return len(rc.counts()) == len(before)+3 })
		stopA() // the sends are cut short: their leases go back
		rc.hold.Store(false)
		held := rc.since(before)
		dispatcher(t, db, clock, "b", lease)
		eventually(t, "b sends what a gave back, within the lease", func() bool { return rc.each(held, 2) })
	})

	t.Run("OKOwnLeaseRunOutNotSentTwice", func(t *testing.T) {
		before := rc.counts()
		rc.hold.Store(true)
		defer rc.hold.Store(false)
		c := watch(t, db)
		stopC := dispatcher(t, c, clock, "c", lease)
		plans(t, 1)
		eventually(t, "c's three sends in flight", func() bool { return len(rc.counts()) == len(before)+3 })
		// The clock passes c's leases while its sends hang: its next
		// claim hands it the same deliveries again, woken at once rather
		// than at its next poll.
		held := rc.since(before)
		clock.advance(lease + time.Second)
		for claimed := false; !claimed; {
			c.poke()
			again := c.claim(t) // a claim begun before the advance may hold none of them
			claimed = true
			for id := range held {
				claimed = claimed && slices.Contains(again, id)
			}
		}
		// The next claim starts only once c has handled that one (dropped
		// what it is sending already, or sent it again).
		c.poke()
		c.claim(t)
		if !rc.each(held, 1) {
			t.Fatalf("one dispatcher sent a delivery twice at once: %v", rc.counts())
		}
		stopC()
	})
}

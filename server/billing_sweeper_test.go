package server

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/store"
	"licensectl/store/bolt"
)

// TestBillingSweeper drives the lifecycle of docs/design.md §10 with a moved
// clock: a paid period ends, the subscription is past_due for the grace
// days with its tier still in force, then returns to the default tier; a
// pending checkout expires after an hour.
func TestBillingSweeper(t *testing.T) {
	t.Parallel()
	var ns atomic.Int64
	ns.Store(time.Date(2030, 5, 10, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, ns.Load()).UTC() }
	advance := func(d time.Duration) { ns.Add(int64(d)) }

	db, err := bolt.Open(filepath.Join(t.TempDir(), "licensectl.db"), bolt.Options{Clock: now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.Default()
	cfg.Billing.Pix = config.Pix{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "RECIFE"}
	if err := db.ConfigureBilling(cfg.Billing.Policy()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Sweep Org"})
	if err != nil {
		t.Fatal(err)
	}
	pay := func(plan string) string {
		c, err := db.BillingCheckout(ctx, store.CheckoutInput{OrgID: org.ID, PlanKey: plan, CustomerPhone: "+5581987654321", CustomerDocument: "11144477735"})
		if err != nil {
			t.Fatal(err)
		}
		return c.TransactionID
	}
	if _, err := db.ConfirmBillingTransaction(ctx, pay("pro")); err != nil {
		t.Fatal(err)
	}
	stale := pay("starter") // never paid

	var mu sync.Mutex
	changed := map[string]int{}
	sweeps := &countedSweeps{BillingMaintenance: db, done: make(chan struct{}, 1)}
	sw := &billingSweeper{store: sweeps, interval: time.Millisecond, logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		changed: func(org string) { mu.Lock(); changed[org]++; mu.Unlock() }}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sw.Run(runCtx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run = %v, want nil after cancel", err)
			}
		}
	}
	defer stop()

	// waitFor polls until the subscription is in status on plan.
	waitFor := func(status, plan string) *store.Subscription {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			sub, err := db.BillingSubscription(ctx, org.ID)
			if err != nil {
				t.Fatal(err)
			}
			if sub.Status == status && sub.Plan.Key == plan {
				return sub
			}
			if time.Now().After(deadline) {
				t.Fatalf("subscription = %s on %s, want %s on %s", sub.Status, sub.Plan.Key, status, plan)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}

	// Within the period nothing moves; after an hour the checkout expired.
	advance(29 * 24 * time.Hour)
	sweeps.next(t) // a sweep that saw the new time, rather than a fixed wait
	waitFor(store.SubscriptionActive, "pro")
	if _, err := db.ConfirmBillingTransaction(ctx, stale); store.ErrorCode(err) != store.ECodeTransition {
		t.Fatalf("confirming an expired checkout: %v, want invalid_transition", err)
	}

	advance(24 * time.Hour) // the 30 days are over
	if sub := waitFor(store.SubscriptionPastDue, "pro"); sub.CurrentPeriodEnd == nil {
		t.Fatalf("past_due lost its period end: %+v", sub)
	}
	if u, err := db.BillingUsage(ctx, org.ID, now()); err != nil || u.Applications.Limit != 10 {
		t.Fatalf("usage while past_due = %+v, %v; want pro's limits", u, err)
	}

	advance(7*24*time.Hour - time.Minute) // not quite the grace days
	sweeps.next(t)
	waitFor(store.SubscriptionPastDue, "pro")

	advance(time.Minute)
	sub := waitFor(store.SubscriptionActive, "free")
	if sub.Provider != store.ProviderNone || sub.CurrentPeriodEnd != nil || !sub.CurrentPeriodStart.Equal(now()) {
		t.Fatalf("back to free = %+v", sub)
	}
	// Stopped, the sweeper has reported every change it made.
	stop()
	mu.Lock()
	defer mu.Unlock()
	if changed[org.ID] != 2 {
		t.Errorf("changed reported %d times, want 2 (past_due, free)", changed[org.ID])
	}
}

// countedSweeps tells the test of each sweep that finished, so that "nothing
// moves" is checked after a sweep that ran at the new time, not after a
// wait long enough for one.
type countedSweeps struct {
	store.BillingMaintenance
	done chan struct{}
}

func (c *countedSweeps) SweepBilling(ctx context.Context) ([]string, error) {
	orgs, err := c.BillingMaintenance.SweepBilling(ctx)
	select {
	case c.done <- struct{}{}:
	default:
	}
	return orgs, err
}

// next waits for a sweep that started after the call: a sweep reported
// before it, or finishing meanwhile, may have read the clock before the
// test moved it, so it forgets the first and waits for two.
func (c *countedSweeps) next(t *testing.T) {
	t.Helper()
	select {
	case <-c.done:
	default:
	}
	for range 2 {
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Fatal("no billing sweep in 5 s")
		}
	}
}

package postgres

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storetest"
)

// billingServers opens two stores on one database, as two servers behind
// a balancer, sharing clock and billing policy.
func billingServers(t *testing.T, clock *storetest.Clock) (*DB, *DB) {
	t.Helper()
	dbs := twoServers(t, Options{Policies: store.Policies{Clock: clock.Now}})
	for _, db := range dbs {
		if err := db.ConfigureBilling(storetest.Billing(false)); err != nil {
			t.Fatal(err)
		}
	}
	return dbs[0], dbs[1]
}

// billingOrg writes an organization row, what the billing part needs of
// one, without the accounts part.
func billingOrg(t *testing.T, db *DB, at time.Time) string {
	t.Helper()
	org := &store.Organization{ID: store.NewID(), Name: "Billed", Slug: "billed-" + store.NewID()[:8], CreatedAt: at, UpdatedAt: at}
	if _, err := db.pool.Exec(context.Background(), `INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3)`, org.ID, org.Slug, js(org)); err != nil {
		t.Fatal(err)
	}
	return org.ID
}

func billingCheckout(t *testing.T, db *DB, org string) *store.Checkout {
	t.Helper()
	c, err := db.BillingCheckout(context.Background(), store.CheckoutInput{OrgID: org, PlanKey: "pro",
		CustomerPhone: "+5511987654321", CustomerDocument: "529.982.247-25"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBillingCallbackOnceAcrossServers: a payment callback delivered to two
// servers at once (and retried) is confirmed once: one audit entry, one
// paid period, not two.
func TestBillingCallbackOnceAcrossServers(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	a, b := billingServers(t, clock)
	ctx := context.Background()
	org := billingOrg(t, a, clock.Now())
	c := billingCheckout(t, a, org)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		db := []*DB{a, b}[i%2]
		wg.Go(func() {
			s, err := db.ConfirmBillingPayment(ctx, c.TransactionID, c.AmountCents)
			if err == nil && (s.Plan.Key != "pro" || !s.CurrentPeriodEnd.Equal(clock.Now().Add(store.PaidPeriod))) {
				t.Errorf("ConfirmBillingPayment = %+v; want pro until %v", s, clock.Now().Add(store.PaidPeriod))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("ConfirmBillingPayment: %v", err)
		}
	}
	var paid int
	if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM audit WHERE event = $1 AND target_id = $2`, store.EventBillingPaid, c.TransactionID).Scan(&paid); err != nil || paid != 1 {
		t.Fatalf("%s entries = %d, %v; want 1", store.EventBillingPaid, paid, err)
	}
	s, err := b.BillingSubscription(ctx, org)
	if err != nil || s.Plan.Key != "pro" || !s.CurrentPeriodEnd.Equal(clock.Now().Add(store.PaidPeriod)) {
		t.Fatalf("BillingSubscription = %+v, %v; want one paid period", s, err)
	}
}

// TestBillingSweepSkipsWhenHeld: a server that finds the billing pass taken
// by another skips the round, and the next round does the work.
func TestBillingSweepSkipsWhenHeld(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	a, b := billingServers(t, clock)
	ctx := context.Background()
	org := billingOrg(t, a, clock.Now())
	c := billingCheckout(t, a, org)
	if _, err := a.ConfirmBillingTransaction(ctx, c.TransactionID); err != nil {
		t.Fatal(err)
	}
	expiring := billingCheckout(t, a, org)
	clock.Advance(store.PaidPeriod)

	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- b.update(ctx, func(t *txn) error {
			if ok, err := t.passLock("billing"); err != nil || !ok {
				close(held)
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	if got, err := a.SweepBilling(ctx); err != nil || len(got) != 0 {
		t.Fatalf("SweepBilling while another server holds the pass = %q, %v; want a skipped round", got, err)
	}
	if s, err := a.BillingSubscription(ctx, org); err != nil || s.Status != store.SubscriptionActive {
		t.Fatalf("subscription after the skipped round = %+v, %v", s, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, err := a.SweepBilling(ctx); err != nil || !slices.Equal(got, []string{org}) {
		t.Fatalf("SweepBilling = %q, %v; want %s past due", got, err, org)
	}
	if s, err := b.BillingSubscription(ctx, org); err != nil || s.Status != store.SubscriptionPastDue {
		t.Fatalf("subscription after the sweep = %+v, %v; want past_due", s, err)
	}
	_, err := b.ConfirmBillingTransaction(ctx, expiring.TransactionID)
	if store.ErrorCode(err) != store.ECodeTransition {
		t.Fatalf("ConfirmBillingTransaction(expired by the sweep) = %v; want %s", err, store.ECodeTransition)
	}
	var status string
	if err := a.pool.QueryRow(ctx, `SELECT status FROM billing_transactions WHERE id = $1`, expiring.TransactionID).Scan(&status); err != nil || status != store.TransactionExpired {
		t.Fatalf("stored status = %q, %v; want expired", status, err)
	}
}

// TestBillingUsageSumsServers: the month's request count is what every
// server added.
func TestBillingUsageSumsServers(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC))
	a, b := billingServers(t, clock)
	ctx := context.Background()
	org := billingOrg(t, a, clock.Now())
	for i, db := range []*DB{a, b, a} {
		if _, err := db.pool.Exec(ctx, `INSERT INTO runtime_usage (org_id, month, requests) VALUES ($1, $2, $3)
			ON CONFLICT (org_id, month) DO UPDATE SET requests = runtime_usage.requests + EXCLUDED.requests`,
			org, store.MonthKey(clock.Now()), int64(10*(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	u, err := b.BillingUsage(ctx, org, clock.Now())
	if err != nil || u.RuntimeRequests.Current != 60 || u.RuntimeRequests.Limit != 1000 || u.PlanKey != "free" {
		t.Fatalf("BillingUsage = %+v, %v; want 60 of 1000", u, err)
	}
	if u, err := a.BillingUsage(ctx, org, clock.Now().Add(time.Hour)); err != nil || u.RuntimeRequests.Current != 0 {
		t.Fatalf("BillingUsage(next month) = %+v, %v; want 0", u, err)
	}
	if n, err := a.MonthlyRequestLimit(ctx, org); err != nil || n != store.Unlimited {
		t.Fatalf("MonthlyRequestLimit(not enforced) = %d, %v", n, err)
	}
	if err := a.ConfigureBilling(storetest.Billing(true)); err != nil {
		t.Fatal(err)
	}
	if n, err := a.MonthlyRequestLimit(ctx, org); err != nil || n != 1000 {
		t.Fatalf("MonthlyRequestLimit(enforced) = %d, %v; want 1000", n, err)
	}
	_, err = a.MonthlyRequestLimit(ctx, store.NewID())
	if store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("MonthlyRequestLimit(unknown) = %v; want not_found", err)
	}
}

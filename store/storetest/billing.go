package storetest

import (
	"testing"

	"licensectl/store"
)

// testBilling: a new organization is on the free tier, and usage counts
// what it holds at read time.
func testBilling(t *testing.T, open Opener) {
	f := newFixture(t, open)
	tiers, err := f.db.BillingPlans(f.ctx)
	if err != nil || len(tiers) == 0 || tiers[0].Key != "free" {
		t.Fatalf("BillingPlans = %+v, %v", tiers, err)
	}
	sub, err := f.db.BillingSubscription(f.ctx, f.org.ID)
	if err != nil || sub.Plan.Key != "free" {
		t.Fatalf("BillingSubscription = %+v, %v", sub, err)
	}
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("P")}, 3)
	if _, err := f.db.SetLicenseStatus(f.ctx, f.scope(store.EnvProduction), gen[0].ID, store.LicenseRevoked); err != nil {
		t.Fatal(err)
	}
	u, err := f.db.BillingUsage(f.ctx, f.org.ID, f.clock.Now())
	if err != nil || u.PlanKey != "free" || u.Applications.Current != 1 || u.LicensesActive.Current != 2 {
		t.Fatalf("BillingUsage = %+v, %v; want 1 application and 2 licenses not revoked", u, err)
	}
	_, err = f.db.BillingSubscription(f.ctx, store.NewID())
	wantCode(t, "BillingSubscription(unknown)", err, store.ECodeNotFound)
}

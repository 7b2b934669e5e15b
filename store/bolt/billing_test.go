package bolt

import (
	"slices"
	"testing"
	"time"

	"licensectl/pix"
	"licensectl/store"
	"licensectl/store/storedoc"
)

func (e *env) orgLicenses(tb testing.TB) int64 {
	tb.Helper()
	u, err := e.db.BillingUsage(e.ctx, e.scope.OrgID, e.clock.now())
	if err != nil {
		tb.Fatal(err)
	}
	return u.LicensesActive.Current
}

// TestOrgLicenseCountBackfill drops the organization-level count and its
// marker, as in a file written before the count existed, and checks that
// opening the file computes it again from the licenses.
func TestOrgLicenseCountBackfill(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 5})
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, lics[0].ID, store.LicenseBanned); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, lics[1].ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	if got := e.orgLicenses(t); got != 4 {
		t.Fatalf("licenses_active = %d, want 4", got)
	}
	err := e.db.update(e.ctx, func(t *txn) error {
		if err := t.tx.Bucket(bCounts).Delete(countKey(bLicOrgActive, idb(e.scope.OrgID))); err != nil {
			return err
		}
		return t.tx.Bucket(bMeta).Delete(metaOrgLicenseCounts)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.orgLicenses(t); got != 0 {
		t.Fatalf("licenses_active = %d with the count dropped", got)
	}
	e.reopen(t)
	if got := e.orgLicenses(t); got != 4 {
		t.Fatalf("licenses_active = %d after reopening, want 4", got)
	}
}

// TestBillingAuditAndExpiry checks the organization-log entries of a checkout
// and a payment, and that the sweeper expires an unpaid checkout.
func TestBillingAuditAndExpiry(t *testing.T) {
	e := newEnv(t)
	p := store.BillingPolicy{GraceDays: 7, Payments: pix.Checkout{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "RECIFE"},
		Tiers: []store.Tier{{Key: "free", Name: "Free", MaxApplications: 1}, {Key: "starter", Name: "Starter", PriceCents: 4900, MaxApplications: 3}}}
	if err := e.db.ConfigureBilling(p); err != nil {
		t.Fatal(err)
	}
	in := store.CheckoutInput{OrgID: e.scope.OrgID, PlanKey: "starter", CustomerPhone: "+5581987654321", CustomerDocument: "00.000.000/0001-91"}
	paid, err := e.db.BillingCheckout(e.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	unpaid, err := e.db.BillingCheckout(e.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ConfirmBillingTransaction(e.ctx, paid.TransactionID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ConfirmBillingTransaction(e.ctx, paid.TransactionID); err != nil {
		t.Fatal(err)
	}
	events := orgAuditEvents(t, e.db, e.scope.OrgID)
	want := []string{"billing.checkout_created", "billing.checkout_created", "billing.paid"}
	if got := slices.DeleteFunc(events, func(ev string) bool { return ev[:8] != "billing." }); !slices.Equal(got, want) {
		t.Fatalf("billing audit events = %v, want %v (one billing.paid for two confirmations)", got, want)
	}

	e.clock.advance(time.Hour)
	if _, err := e.db.SweepBilling(e.ctx); err != nil {
		t.Fatal(err)
	}
	txStatus := func(id string) string {
		rec := new(storedoc.BillingTransaction)
		if err := e.db.view(e.ctx, func(t *txn) error { return t.mustGet(bBillingTx, id, "transaction", rec) }); err != nil {
			t.Fatal(err)
		}
		return rec.Status
	}
	if got := txStatus(unpaid.TransactionID); got != store.TransactionExpired {
		t.Fatalf("unpaid checkout after an hour = %s, want expired", got)
	}
	if got := txStatus(paid.TransactionID); got != store.TransactionPaid {
		t.Fatalf("paid checkout = %s", got)
	}
}

package storetest

import (
	"testing"

	"licensectl/store"
)

// testLimits: with limits enforced, the tier's counts refuse what would
// exceed them, inside the same write, and nothing of a refused batch stays.
func testLimits(t *testing.T, open Opener) {
	f := newFixtureWith(t, open, Billing(true))
	_, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: "Second"})
	wantCode(t, "CreateApplication(over the tier)", err, store.ECodePlanLimit)
	plan, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("P")})
	if err != nil {
		t.Fatal(err)
	}
	sc := f.scope(store.EnvProduction)
	_, err = f.db.GenerateLicenses(f.ctx, sc, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 4})
	wantCode(t, "GenerateLicenses(over the tier)", err, store.ECodePlanLimit)
	if p, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{}); err != nil || p.Total != 0 {
		t.Fatalf("licenses after the refused batch = %+v, %v", p, err)
	}
	if _, err := f.db.GenerateLicenses(f.ctx, sc, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 3}); err != nil {
		t.Fatalf("GenerateLicenses(up to the limit): %v", err)
	}
	_, err = f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "second@conformance.test", Password: Password, Role: store.RoleAdmin})
	if err != nil {
		t.Fatalf("AddMember(second of two): %v", err)
	}
	_, err = f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "third@conformance.test", Password: Password, Role: store.RoleAdmin})
	wantCode(t, "AddMember(over the tier)", err, store.ECodePlanLimit)
	u, err := f.db.BillingUsage(f.ctx, f.org.ID, f.clock.Now())
	if err != nil || u.LicensesActive.Current != 3 || u.LicensesActive.Limit != 3 {
		t.Fatalf("BillingUsage = %+v, %v", u, err)
	}
}

// testCheckout: a Pix checkout for a paid tier, confirmed, puts the tier in
// force; bad input and unknown ids are refused.
func testCheckout(t *testing.T, open Opener) {
	f := newFixture(t, open)
	in := store.CheckoutInput{OrgID: f.org.ID, PlanKey: "pro", CustomerPhone: "+5511987654321", CustomerDocument: "529.982.247-25"}
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, bad := range map[string]func(*store.CheckoutInput){
			"free tier": func(i *store.CheckoutInput) { i.PlanKey = "free" },
			"no tier":   func(i *store.CheckoutInput) { i.PlanKey = "" },
			"phone":     func(i *store.CheckoutInput) { i.CustomerPhone = "11987654321" },
			"document":  func(i *store.CheckoutInput) { i.CustomerDocument = "111.111.111-11" },
		} {
			i := in
			bad(&i)
			_, err := f.db.BillingCheckout(f.ctx, i)
			wantCode(t, "BillingCheckout("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		i := in
		i.OrgID = store.NewID()
		_, err := f.db.BillingCheckout(f.ctx, i)
		wantCode(t, "BillingCheckout(unknown organization)", err, store.ECodeNotFound)
		_, err = f.db.ConfirmBillingTransaction(f.ctx, store.NewID())
		wantCode(t, "ConfirmBillingTransaction(unknown)", err, store.ECodeNotFound)
		_, err = f.db.BillingUsage(f.ctx, store.NewID(), f.clock.Now())
		wantCode(t, "BillingUsage(unknown)", err, store.ECodeNotFound)
	})
	t.Run("OK", func(t *testing.T) {
		c, err := f.db.BillingCheckout(f.ctx, in)
		if err != nil || c.TransactionID == "" || c.CopyPaste == "" || c.AmountCents != 4900 {
			t.Fatalf("BillingCheckout = %+v, %v", c, err)
		}
		for range 2 { // confirming again changes nothing
			sub, err := f.db.ConfirmBillingTransaction(f.ctx, c.TransactionID)
			if err != nil || sub.Plan.Key != "pro" || sub.Status != "active" {
				t.Fatalf("ConfirmBillingTransaction = %+v, %v", sub, err)
			}
		}
		sub, err := f.db.BillingSubscription(f.ctx, f.org.ID)
		if err != nil || sub.Plan.Key != "pro" || sub.OrgID != f.org.ID {
			t.Fatalf("BillingSubscription after payment = %+v, %v", sub, err)
		}
	})
	t.Run("ErrUnavailable", func(t *testing.T) {
		p := Billing(false)
		p.Payments = nil
		g := newFixtureWith(t, open, p)
		_, err := g.db.BillingCheckout(g.ctx, store.CheckoutInput{OrgID: g.org.ID, PlanKey: "pro", CustomerPhone: in.CustomerPhone, CustomerDocument: in.CustomerDocument})
		wantCode(t, "BillingCheckout(no Pix key)", err, store.ECodeUnavailable)
	})
}

package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

const day = 24 * time.Hour

// testAfterSale: renewals, plan changes, transfers and maintenance of
// docs/design.md §16, each rule once in store.Service and proved here on
// every store (and over HTTP).
func testAfterSale(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	detail := func(t *testing.T, id string) *store.LicenseDetail {
		t.Helper()
		d, err := f.db.FindLicense(f.ctx, sc, id)
		if err != nil {
			t.Fatalf("FindLicense: %v", err)
		}
		return d
	}
	wantExpiry := func(t *testing.T, what, id string, want time.Time) *store.LicenseDetail {
		t.Helper()
		d := detail(t, id)
		if d.ExpiresAt == nil || !d.ExpiresAt.Equal(want) {
			t.Fatalf("%s: expires_at = %v; want %v", what, d.ExpiresAt, want)
		}
		return d
	}
	events := func(t *testing.T, id, event string) []*store.AuditEntry {
		t.Helper()
		p, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: id, PageRequest: store.PageRequest{PerPage: 100}})
		if err != nil {
			t.Fatalf("ListAudit(%s): %v", id, err)
		}
		var out []*store.AuditEntry
		for _, e := range p.Data {
			if e.Event == event {
				out = append(out, e)
			}
		}
		return out
	}
	entitlement := func(t *testing.T, key string) *store.Entitlement {
		t.Helper()
		e, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: key, Name: key})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	n := 0
	plan := func(t *testing.T, in store.PlanInput) *store.Plan {
		t.Helper()
		n++
		in.Name = ptr(fmt.Sprintf("After sale %d", n))
		p, err := f.db.CreatePlan(f.ctx, f.ref(), in)
		if err != nil {
			t.Fatalf("CreatePlan: %v", err)
		}
		return p
	}
	generate := func(t *testing.T, p *store.Plan, expires *time.Time, qty int) []*store.LicenseItem {
		t.Helper()
		gen, err := f.db.GenerateLicenses(f.ctx, sc, store.GenerateLicensesInput{PlanID: p.ID, Quantity: qty, ExpiresAt: expires})
		if err != nil || len(gen) != qty {
			t.Fatalf("GenerateLicenses = %d, %v", len(gen), err)
		}
		return gen
	}
	at := func(d time.Duration) *time.Time { v := f.clock.Now().Add(d); return &v }

	t.Run("OKRenewFromExpiry", func(t *testing.T) {
		exp := at(10 * day)
		l := generate(t, plan(t, store.PlanInput{}), exp, 1)[0]
		got, err := f.db.RenewLicense(f.ctx, sc, l.ID, store.RenewInput{Days: ptr(30)})
		if err != nil || got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp.Add(30*day)) {
			t.Fatalf("RenewLicense = %+v, %v; want expires_at %v", got, err, exp.Add(30*day))
		}
		wantExpiry(t, "after a renewal ahead of expiry", l.ID, exp.Add(30*day))
		ev := events(t, l.ID, store.EventLicenseRenewed)
		if len(ev) != 1 || ev[0].Metadata["previous_expires_at"] != exp.UTC().Format(time.RFC3339Nano) ||
			ev[0].Metadata["expires_at"] != exp.Add(30*day).UTC().Format(time.RFC3339Nano) {
			t.Fatalf("license.renewed entries = %+v; want one with the pair", ev)
		}
	})
	t.Run("OKRenewExpiredValidatesAgain", func(t *testing.T) {
		l := generate(t, plan(t, store.PlanInput{}), at(5*time.Minute), 1)[0]
		a := f.activation(t, l.Key, "after-sale-expired")
		f.clock.Advance(6 * time.Minute)
		f.wantReason(t, "the session of the lapsed license", a.AccessToken, store.ReasonLicenseExpired)
		if _, err := f.be.ExpireLicenses(f.ctx); err != nil {
			t.Fatal(err)
		}
		if s := detail(t, l.ID).Status; s != store.LicenseExpired {
			t.Fatalf("status after the expiry pass = %s", s)
		}
		got, err := f.db.RenewLicense(f.ctx, sc, l.ID, store.RenewInput{Days: ptr(7)})
		if err != nil {
			t.Fatal(err)
		}
		want := f.clock.Now().Add(7 * day)
		if got.EffectiveStatus(f.clock.Now()) != store.LicenseActive || !got.ExpiresAt.Equal(want) {
			t.Fatalf("renewed = %s until %v; want active until %v (from now)", got.Status, got.ExpiresAt, want)
		}
		if d := wantExpiry(t, "renewed from now", l.ID, want); d.Status != store.LicenseActive {
			t.Fatalf("read back status = %s; want active", d.Status)
		}
		f.wantReason(t, "the old session after the renewal", a.AccessToken, "")
		p, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Status: store.LicenseActive, Key: l.Key})
		if err != nil || p.Total != 1 {
			t.Fatalf("ListLicenses(active) = %+v, %v; want the renewed license", p, err)
		}
	})
	t.Run("OKDefaultDaysAndMaintenance", func(t *testing.T) {
		p := plan(t, store.PlanInput{DurationDays: ptr(ptr(30)), MaintenanceDays: ptr(ptr(365))})
		if got, err := f.db.FindPlan(f.ctx, f.ref(), p.ID); err != nil || got.MaintenanceDays == nil || *got.MaintenanceDays != 365 {
			t.Fatalf("FindPlan = %+v, %v; want maintenance_days 365", got, err)
		}
		l := generate(t, p, nil, 1)[0]
		if l.MaintenanceExpiresAt != nil {
			t.Fatalf("maintenance before activation = %v; want none yet", l.MaintenanceExpiresAt)
		}
		f.activation(t, l.Key, "after-sale-mnt")
		d := detail(t, l.ID)
		if d.ActivatedAt == nil || d.MaintenanceExpiresAt == nil || !d.MaintenanceExpiresAt.Equal(d.ActivatedAt.Add(365*day)) {
			t.Fatalf("maintenance_expires_at = %v, activated %v; want activated + 365 days", d.MaintenanceExpiresAt, d.ActivatedAt)
		}
		exp, mnt := *d.ExpiresAt, *d.MaintenanceExpiresAt
		if _, err := f.db.RenewLicense(f.ctx, sc, l.ID, store.RenewInput{}); err != nil {
			t.Fatal(err)
		}
		d = wantExpiry(t, "renewed by the plan's duration_days", l.ID, exp.Add(30*day))
		if !d.MaintenanceExpiresAt.Equal(mnt) {
			t.Fatalf("a renewal without maintenance_days moved maintenance to %v", d.MaintenanceExpiresAt)
		}
		if _, err := f.db.RenewLicense(f.ctx, sc, l.ID, store.RenewInput{MaintenanceDays: ptr(30)}); err != nil {
			t.Fatal(err)
		}
		d = wantExpiry(t, "a maintenance renewal", l.ID, exp.Add(30*day))
		if !d.MaintenanceExpiresAt.Equal(mnt.Add(30 * day)) {
			t.Fatalf("maintenance_expires_at = %v; want %v", d.MaintenanceExpiresAt, mnt.Add(30*day))
		}
		items, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Key: l.Key})
		if err != nil || items.Total != 1 || items.Data[0].MaintenanceExpiresAt == nil || !items.Data[0].MaintenanceExpiresAt.Equal(mnt.Add(30*day)) {
			t.Fatalf("the list item's maintenance_expires_at = %+v, %v", items, err)
		}
	})
	t.Run("ErrInvalidTransition", func(t *testing.T) {
		perpetual := generate(t, plan(t, store.PlanInput{}), nil, 2)
		_, err := f.db.RenewLicense(f.ctx, sc, perpetual[0].ID, store.RenewInput{Days: ptr(10)})
		wantCode(t, "RenewLicense(perpetual, days)", err, store.ECodeTransition)
		_, err = f.db.RenewLicense(f.ctx, sc, perpetual[0].ID, store.RenewInput{MaintenanceDays: ptr(10)})
		wantCode(t, "RenewLicense(unlimited maintenance)", err, store.ECodeTransition)
		dated := generate(t, plan(t, store.PlanInput{}), at(day), 2)
		for i, status := range []string{store.LicenseRevoked, store.LicenseBanned} {
			if _, err := f.db.SetLicenseStatus(f.ctx, sc, dated[i].ID, status); err != nil {
				t.Fatal(err)
			}
			_, err := f.db.RenewLicense(f.ctx, sc, dated[i].ID, store.RenewInput{Days: ptr(10)})
			wantCode(t, "RenewLicense("+status+")", err, store.ECodeTransition)
			wantExpiry(t, "a refused renewal", dated[i].ID, *dated[i].ExpiresAt)
		}
		if ev := events(t, perpetual[0].ID, store.EventLicenseRenewed); len(ev) != 0 {
			t.Fatalf("refused renewals audited %d entries", len(ev))
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		l := generate(t, plan(t, store.PlanInput{}), at(day), 1)[0]
		for _, c := range []struct {
			what  string
			in    store.RenewInput
			field string
		}{
			{"no days and a plan without duration_days", store.RenewInput{}, "days"},
			{"days 0", store.RenewInput{Days: ptr(0)}, "days"},
			{"days past 36,500", store.RenewInput{Days: ptr(36_501)}, "days"},
			{"maintenance_days 0", store.RenewInput{MaintenanceDays: ptr(0)}, "maintenance_days"},
		} {
			_, err := f.db.RenewLicense(f.ctx, sc, l.ID, c.in)
			wantCode(t, "RenewLicense("+c.what+")", err, store.ECodeValidation)
			// The message names the field: the wire error has no field of its own.
			if msg := store.ErrorMessage(err); !strings.HasPrefix(msg, c.field+" ") {
				t.Fatalf("RenewLicense(%s) = %q; want it to name %s", c.what, msg, c.field)
			}
		}
		_, err := f.db.RenewLicense(f.ctx, sc, store.NewID(), store.RenewInput{Days: ptr(1)})
		wantCode(t, "RenewLicense(unknown)", err, store.ECodeNotFound)
	})
	t.Run("OKParallelRenewals", func(t *testing.T) {
		exp := at(3 * day)
		l := generate(t, plan(t, store.PlanInput{}), exp, 1)[0]
		codes := parallel(20, func(int) error {
			_, err := f.db.RenewLicense(f.ctx, sc, l.ID, store.RenewInput{Days: ptr(2)})
			return err
		})
		tally(t, "20 parallel renewals", codes, "")
		wantExpiry(t, "after 20 parallel renewals of 2 days", l.ID, exp.Add(40*day))
		if ev := events(t, l.ID, store.EventLicenseRenewed); len(ev) != 20 {
			t.Fatalf("license.renewed entries = %d; want 20", len(ev))
		}
	})
	t.Run("OKBulkAllOrNothing", func(t *testing.T) {
		exp := at(2 * day)
		gen := generate(t, plan(t, store.PlanInput{}), exp, 3)
		ids := []string{gen[0].ID, gen[1].ID, store.NewID(), gen[2].ID}
		_, err := f.db.RenewLicenses(f.ctx, sc, store.BulkRenewInput{LicenseIDs: ids, Days: 10})
		wantCode(t, "RenewLicenses(one unknown)", err, store.ECodeNotFound)
		perpetual := generate(t, plan(t, store.PlanInput{}), nil, 1)[0]
		_, err = f.db.RenewLicenses(f.ctx, sc, store.BulkRenewInput{LicenseIDs: []string{gen[0].ID, perpetual.ID}, Days: 10})
		wantCode(t, "RenewLicenses(one perpetual)", err, store.ECodeTransition)
		for _, g := range gen {
			wantExpiry(t, "after a refused bulk renewal", g.ID, *exp)
			if ev := events(t, g.ID, store.EventLicenseRenewed); len(ev) != 0 {
				t.Fatalf("a refused bulk renewal audited %d entries", len(ev))
			}
		}
		_, err = f.db.RenewLicenses(f.ctx, sc, store.BulkRenewInput{LicenseIDs: []string{gen[0].ID, gen[0].ID}, Days: 10})
		wantCode(t, "RenewLicenses(an id twice)", err, store.ECodeValidation)
		_, err = f.db.RenewLicenses(f.ctx, sc, store.BulkRenewInput{Days: 10})
		wantCode(t, "RenewLicenses(no ids)", err, store.ECodeValidation)
		got, err := f.db.RenewLicenses(f.ctx, sc, store.BulkRenewInput{LicenseIDs: []string{gen[2].ID, gen[0].ID, gen[1].ID}, Days: 10})
		if err != nil || len(got) != 3 || got[0].ID != gen[2].ID || got[1].ID != gen[0].ID || got[0].PlanName == "" {
			t.Fatalf("RenewLicenses = %+v, %v; want the three in the order asked", got, err)
		}
		for _, g := range gen {
			wantExpiry(t, "after the bulk renewal", g.ID, exp.Add(10*day))
			if ev := events(t, g.ID, store.EventLicenseRenewed); len(ev) != 1 {
				t.Fatalf("license.renewed entries of %s = %d; want one", g.ID, len(ev))
			}
		}
	})
	t.Run("OKPlanChangeMovesEntitlements", func(t *testing.T) {
		basic, pro := entitlement(t, "after.basic"), entitlement(t, "after.pro")
		from := plan(t, store.PlanInput{MaxDevices: ptr(2), DeviceResetLimit: ptr(3), EntitlementIDs: &[]string{basic.ID}})
		to := plan(t, store.PlanInput{MaxDevices: ptr(2), DeviceResetLimit: ptr(5), EntitlementIDs: &[]string{pro.ID}})
		l := generate(t, from, nil, 1)[0]
		a := f.activation(t, l.Key, "after-sale-plan")
		if v := f.wantReason(t, "before the plan change", a.AccessToken, ""); !slices.Equal(v.Entitlements, []string{"after.basic"}) {
			t.Fatalf("entitlements = %v; want [after.basic]", v.Entitlements)
		}
		got, err := f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{PlanID: &to.ID})
		if err != nil || got.PlanID != to.ID || got.PlanName != to.Name {
			t.Fatalf("UpdateLicense(plan_id) = %+v, %v", got, err)
		}
		if v := f.wantReason(t, "the live session after the plan change", a.AccessToken, ""); !slices.Equal(v.Entitlements, []string{"after.pro"}) {
			t.Fatalf("entitlements = %v; want [after.pro] at once", v.Entitlements)
		}
		if d := detail(t, l.ID); d.DeviceResetsRemaining != 5 || d.ExpiresAt != nil {
			t.Fatalf("device_resets_remaining = %d, expires_at %v; want the new plan's 5 and the expiry kept", d.DeviceResetsRemaining, d.ExpiresAt)
		}
		ev := events(t, l.ID, store.EventLicensePlanChanged)
		if len(ev) != 1 || fmt.Sprint(ev[0].Metadata["previous_plan"]) != fmt.Sprint(map[string]any{"id": from.ID, "name": from.Name}) ||
			fmt.Sprint(ev[0].Metadata["plan"]) != fmt.Sprint(map[string]any{"id": to.ID, "name": to.Name}) {
			t.Fatalf("license.plan_changed entries = %+v", ev)
		}
		_, err = f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{PlanID: ptr(store.NewID())})
		wantCode(t, "UpdateLicense(unknown plan)", err, store.ECodeValidation)
	})
	t.Run("ErrTooManyDevices", func(t *testing.T) {
		big, small := plan(t, store.PlanInput{MaxDevices: ptr(3)}), plan(t, store.PlanInput{MaxDevices: ptr(1)})
		l := generate(t, big, nil, 1)[0]
		f.activation(t, l.Key, "after-sale-cap-1")
		f.activation(t, l.Key, "after-sale-cap-2")
		before := detail(t, l.ID)
		_, err := f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{PlanID: &small.ID, ExpiresAt: ptr(at(day))})
		wantCode(t, "UpdateLicense(plan with fewer devices)", err, store.ECodeTooManyDevices)
		if msg := store.ErrorMessage(err); !strings.Contains(msg, "2 devices bound") || !strings.Contains(msg, "allows 1") {
			t.Fatalf("message %q does not name both counts", msg)
		}
		after := detail(t, l.ID)
		if after.PlanID != big.ID || after.ExpiresAt != nil || !after.UpdatedAt.Equal(before.UpdatedAt) || after.DevicesCount != 2 {
			t.Fatalf("a refused plan change changed the license: %+v", after)
		}
		if ev := events(t, l.ID, store.EventLicensePlanChanged); len(ev) != 0 {
			t.Fatalf("a refused plan change audited %d entries", len(ev))
		}
	})
	t.Run("OKTransfer", func(t *testing.T) {
		ent := entitlement(t, "after.transfer")
		p := plan(t, store.PlanInput{MaxDevices: ptr(2), EntitlementIDs: &[]string{ent.ID}})
		l := generate(t, p, nil, 1)[0]
		seller, sellerLogin := f.endUser(t, "seller@after.test", "after-sale-seller")
		a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: l.Key, Fingerprint: "after-sale-seller", UserToken: sellerLogin.AccessToken, Replay: f.replay()})
		if err != nil {
			t.Fatal(err)
		}
		if v := f.wantReason(t, "the seller's login before", sellerLogin.AccessToken, ""); !slices.Equal(v.Entitlements, []string{"after.transfer"}) {
			t.Fatalf("seller's entitlements = %v", v.Entitlements)
		}
		buyer, buyerLogin := f.endUser(t, "buyer@after.test", "after-sale-buyer")
		got, err := f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{UserID: &buyer.ID})
		if err != nil || got.UserID != buyer.ID || got.UserEmail != "buyer@after.test" {
			t.Fatalf("UpdateLicense(user_id) = %+v, %v", got, err)
		}
		if v := f.wantReason(t, "the seller's login after", sellerLogin.AccessToken, ""); len(v.Entitlements) != 0 {
			t.Fatalf("the seller's login session kept %v after the transfer", v.Entitlements)
		}
		if v := f.wantReason(t, "the buyer's login", buyerLogin.AccessToken, ""); !slices.Equal(v.Entitlements, []string{"after.transfer"}) {
			t.Fatalf("buyer's entitlements = %v", v.Entitlements)
		}
		f.wantReason(t, "the device-bound session", a.AccessToken, "")
		ev := events(t, l.ID, store.EventLicenseTransferred)
		if len(ev) != 1 || fmt.Sprint(ev[0].Metadata["previous_user"]) != fmt.Sprint(map[string]any{"id": seller.ID, "email": "seller@after.test"}) ||
			fmt.Sprint(ev[0].Metadata["user"]) != fmt.Sprint(map[string]any{"id": buyer.ID, "email": "buyer@after.test"}) {
			t.Fatalf("license.transferred entries = %+v", ev)
		}
		got, err = f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{UserID: ptr("")})
		if err != nil || got.UserID != "" {
			t.Fatalf("UpdateLicense(unassign) = %+v, %v", got, err)
		}
		_, err = f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{UserID: ptr(store.NewID())})
		wantCode(t, "UpdateLicense(unknown user)", err, store.ECodeNotFound)
		dev, err := f.be.RegisterEndUser(f.ctx, f.scope(store.EnvDevelopment), "dev@after.test", Password)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{UserID: &dev.ID})
		wantCode(t, "UpdateLicense(another environment's user)", err, store.ECodeNotFound)
	})
	t.Run("OKSeveralFieldsAllOrNothing", func(t *testing.T) {
		a, b := plan(t, store.PlanInput{MaxDevices: ptr(2)}), plan(t, store.PlanInput{MaxDevices: ptr(2)})
		l := generate(t, a, at(day), 1)[0]
		u, _ := f.endUser(t, "several@after.test", "after-sale-several")
		exp, mnt := at(100*day), at(50*day)
		bad := store.LicenseUpdate{PlanID: &b.ID, ExpiresAt: ptr(exp), MaintenanceExpiresAt: ptr(mnt), UserID: ptr(store.NewID()), Status: ptr(store.LicenseSuspended)}
		_, err := f.db.UpdateLicense(f.ctx, sc, l.ID, bad)
		wantCode(t, "UpdateLicense(four fields and an unknown user)", err, store.ECodeNotFound)
		d := wantExpiry(t, "after a refused PATCH", l.ID, *l.ExpiresAt)
		if d.PlanID != a.ID || d.MaintenanceExpiresAt != nil || d.UserID != "" || d.Status != store.LicenseInactive {
			t.Fatalf("a refused PATCH changed the license: %+v", d)
		}
		good := bad
		good.UserID = &u.ID
		if _, err := f.db.UpdateLicense(f.ctx, sc, l.ID, good); err != nil {
			t.Fatal(err)
		}
		d = wantExpiry(t, "after the PATCH", l.ID, *exp)
		if d.PlanID != b.ID || d.MaintenanceExpiresAt == nil || !d.MaintenanceExpiresAt.Equal(*mnt) || d.UserID != u.ID || d.Status != store.LicenseSuspended {
			t.Fatalf("the PATCH left %+v", d)
		}
		for _, e := range []string{store.EventLicensePlanChanged, store.EventLicenseTransferred, store.EventLicenseUpdated, store.EventLicenseSuspended} {
			if ev := events(t, l.ID, e); len(ev) != 1 {
				t.Fatalf("%s entries = %d; want one", e, len(ev))
			}
		}
		if _, err := f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{ExpiresAt: ptr(at(-time.Hour))}); err != nil {
			t.Fatal(err)
		}
		if d := detail(t, l.ID); d.Status != store.LicenseSuspended {
			t.Fatalf("a suspended license with a past expiry reads %s; want suspended", d.Status)
		}
		if _, err := f.db.UpdateLicense(f.ctx, sc, l.ID, store.LicenseUpdate{Status: ptr(store.LicenseActive), ExpiresAt: ptr[*time.Time](nil)}); err != nil {
			t.Fatal(err)
		}
		if d := detail(t, l.ID); d.ExpiresAt != nil || d.Status != store.LicenseInactive {
			t.Fatalf("expires_at null and reinstated = %v, %s; want perpetual and inactive (never activated)", d.ExpiresAt, d.Status)
		}
		past := generate(t, a, at(day), 1)[0]
		if _, err := f.db.UpdateLicense(f.ctx, sc, past.ID, store.LicenseUpdate{ExpiresAt: ptr(at(-time.Minute))}); err != nil {
			t.Fatal(err)
		}
		if d := detail(t, past.ID); d.EffectiveStatus(f.clock.Now()) != store.LicenseExpired {
			t.Fatalf("expires_at in the past reads %s; want expired at once", d.EffectiveStatus(f.clock.Now()))
		}
		ev := events(t, past.ID, store.EventLicenseUpdated)
		if len(ev) != 1 || ev[0].Metadata["previous_expires_at"] == nil || ev[0].Metadata["expires_at"] == nil {
			t.Fatalf("license.updated entries = %+v; want one with the expiry pair", ev)
		}
	})
}

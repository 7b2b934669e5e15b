package tui

import (
	"context"
	"testing"
	"time"

	"licensectl/store"
)

// TestLicenseRenew: R on the detail shows the expiry it moves from and to
// before y, and renews by the plan's duration_days; a license without an
// expiry (the seeded plan is perpetual) says why it cannot be renewed.
func TestLicenseRenew(t *testing.T) {
	s := seed(t, 1)
	ctx := context.Background()
	ref := store.AppRef{OrgID: s.orgID, AppID: s.app.ID}
	name, days := "Yearly", 365
	d := &days
	p, err := s.db.CreatePlan(ctx, ref, store.PlanInput{Name: &name, DurationDays: &d})
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	gen, err := s.db.GenerateLicenses(ctx, s.scope(), store.GenerateLicensesInput{PlanID: p.ID, Quantity: 1, ExpiresAt: &exp})
	if err != nil {
		t.Fatal(err)
	}
	perpetual := s.licenseItems(t)[len(s.licenseItems(t))-1]

	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 140, 30)
	h.press(":", "license "+gen[0].Key, "enter")
	h.contains("Plan Yearly")
	h.press("R")
	h.contains("→")
	h.contains("365 days of plan Yearly")
	if got, _ := s.db.FindLicense(ctx, s.scope(), gen[0].ID); !got.ExpiresAt.Equal(exp) {
		t.Fatalf("the license changed before y: expires %v", got.ExpiresAt)
	}
	h.press("y")
	h.contains("History  license.renewed")
	got, err := s.db.FindLicense(ctx, s.scope(), gen[0].ID)
	if err != nil || !got.ExpiresAt.Equal(exp.Add(365*24*time.Hour)) {
		t.Fatalf("after y: expires %v, %v; want %v", got.ExpiresAt, err, exp.Add(365*24*time.Hour))
	}

	h2 := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 140, 30)
	h2.press(":", "license "+perpetual.Key, "enter")
	h2.contains("Plan Pro")
	h2.press("R")
	h2.contains("Cannot renew")
}

// TestLicenseChangePlanAndTransfer: P shows the move to another plan (or
// refuses it under the field when too many devices are bound) and O the
// transfer, each with its consequences before y.
func TestLicenseChangePlanAndTransfer(t *testing.T) {
	s := seed(t, 1)
	ctx := context.Background()
	ref := store.AppRef{OrgID: s.orgID, AppID: s.app.ID}
	name, one := "Solo", 1
	solo, err := s.db.CreatePlan(ctx, ref, store.PlanInput{Name: &name, MaxDevices: &one})
	if err != nil {
		t.Fatal(err)
	}
	lic := s.licenseItems(t)[len(s.licenseItems(t))-1]
	if _, err := s.db.RegisterEndUser(ctx, s.scope(), "carol@example.com", "a fine password 1"); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 140, 30)
	h.press(":", "license "+lic.Key, "enter")
	h.contains("Plan Pro")
	h.press("P")
	h.contains("Move " + lic.Key + " to another plan")
	h.press("ctrl+s")
	h.contains("Plan Pro → Solo")
	h.contains("the new plan allows 1")
	h.press("y")
	h.contains("Plan Solo")
	if got, _ := s.db.FindLicense(ctx, s.scope(), lic.ID); got.PlanID != solo.ID {
		t.Fatalf("plan after y = %s; want Solo", got.PlanID)
	}

	h.press("O")
	h.contains("Transfer " + lic.Key)
	h.press("carol@example.com", "ctrl+s")
	h.contains("User nobody → carol@example.com")
	h.press("y")
	h.contains("History  license.transferred")
	if got, _ := s.db.FindLicense(ctx, s.scope(), lic.ID); got.UserEmail != "carol@example.com" {
		t.Fatalf("user after y = %q", got.UserEmail)
	}
}

package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/bolt"
)

// floatingSeed is a seeded license on a plan of one floating seat, activated
// on two devices of which the first holds the seat.
func floatingSeed(t *testing.T) (*seeded, *store.LicenseItem, *store.Lease) {
	t.Helper()
	s := seed(t, 1)
	ctx := context.Background()
	one := 1
	if _, err := s.db.UpdatePlan(ctx, store.AppRef{OrgID: s.orgID, AppID: s.app.ID}, s.plan.ID, store.PlanInput{MaxConcurrent: &one}); err != nil {
		t.Fatal(err)
	}
	lic := s.licenseItems(t)[0]
	rt := s.db.Runtime(bolt.RuntimeOptions{
		Signer:    func(_ *store.Environment, c store.AccessClaims) (string, error) { return "tok." + c.SessionID, nil },
		SessionOf: func(tok string) string { return strings.TrimPrefix(tok, "tok.") },
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Minute,
	})
	rc := store.RuntimeClient{AppID: s.app.ID, Env: store.EnvProduction}
	var seat *store.Lease
	for i, fp := range []string{"fp-seat-holder", "fp-no-seat"} {
		a, err := rt.Activate(ctx, rc, store.ActivateInput{LicenseKey: lic.Key, Fingerprint: fp,
			Replay: store.Replay{Timestamp: time.Now(), Nonce: "tui-lease-nonce-a" + fp}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			g, err := rt.CheckoutLease(ctx, rc, a.AccessToken, store.Replay{Timestamp: time.Now(), Nonce: "tui-lease-nonce-lease"})
			if err != nil {
				t.Fatal(err)
			}
			seat = &g.Lease
		}
	}
	return s, lic, seat
}

// TestLicenseDetailFloatingSeats: a floating license's detail shows the
// plan's max_concurrent and who holds the live seats, and its verdict says
// lease_required for a device without a lease, as the server answers.
func TestLicenseDetailFloatingSeats(t *testing.T) {
	s, lic, seat := floatingSeed(t)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 160, 40)
	h.press(":", "license "+lic.Key, "enter")
	h.contains("max_concurrent 1)")
	h.contains("Leases (1 of 1 seats in use)")
	h.contains("fp-seat-holder holds a seat until")
	h.contains("(lease " + tail(seat.ID) + ")")
	h.contains("YES on a device holding a live lease (1 of 1 seats in use); without one " + h.m.c.g.to + " lease_required")
	h.contains("device fp-seat-holder (active): sessions on it " + h.m.c.g.to + " valid")
	h.contains("device fp-no-seat (active): sessions on it " + h.m.c.g.to + " lease_required")

	// Once the lease has run out (by the TUI's clock, past what the store
	// last listed) the seat is free and no device validates.
	h.now = seat.ExpiresAt.Add(time.Second)
	h.press("ctrl+r")
	h.contains("Leases (0 of 1 seats in use)")
	h.contains("no device holds a seat")
	h.contains("device fp-seat-holder (active): sessions on it " + h.m.c.g.to + " lease_required")
}

// TestLicenseDetailNeverActivated: a license no device has activated has no
// session to validate, and the verdict says why rather than YES.
func TestLicenseDetailNeverActivated(t *testing.T) {
	s := seed(t, 1)
	lic := s.licenseItems(t)[0]
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 160, 40)
	h.press(":", "license "+lic.Key, "enter")
	h.contains("validate now?   NO " + h.m.c.g.to + " inactive: never activated")
	if v := h.view(); strings.Contains(v, "Leases (") {
		t.Fatalf("a license without floating seats shows a lease section:\n%s", v)
	}
}

// TestDetailsOpenTheirHistory: h on a license, a device and a user opens
// the audit entries about that record alone, and esc goes back.
func TestDetailsOpenTheirHistory(t *testing.T) {
	s := seed(t, 2)
	ctx := context.Background()
	lics := s.licenseItems(t)
	u, err := s.db.RegisterEndUser(ctx, s.scope(), "ada@example.com", "long enough password")
	if err != nil {
		t.Fatal(err)
	}
	dv := s.bind(t, lics[0].ID, "fp-laptop-1", u.ID)
	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), lics[0].ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), lics[1].ID, store.LicenseRevoked); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.SetDeviceStatus(ctx, s.scope(), dv.ID, store.DeviceBlocked); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.SetEndUserStatus(ctx, s.scope(), u.ID, store.UserBanned); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 160, 40)
	for _, tc := range []struct {
		open, title, want string
		not               []string
	}{
		{"license " + lics[0].Key, "History of license " + lics[0].Key, "license.suspended", []string{"license.revoked", "device.blocked", "user.banned"}},
		{"device fp-laptop-1", "History of device fp-laptop-1", "device.blocked", []string{"license.suspended", "user.banned"}},
		{"user ada@example.com", "History of user ada@example.com", "user.banned", []string{"license.suspended", "device.blocked"}},
	} {
		h.press(":", tc.open, "enter", "h")
		h.contains(tc.title)
		h.contains(tc.want)
		v := h.view()
		for _, n := range tc.not {
			if strings.Contains(v, n) {
				t.Fatalf("%s holds %s, another record's:\n%s", tc.title, n, v)
			}
		}
		h.press("esc")
		if strings.Contains(h.view(), tc.title) {
			t.Fatalf("esc left %s open:\n%s", tc.title, h.view())
		}
	}
}

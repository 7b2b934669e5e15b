package storetest

import (
	"context"
	"testing"

	"licensectl/store"
)

// Fixtures is the small API each store implements for tests, beside
// store.Backend: it creates what no interface of store creates, skipping
// the rules those interfaces apply (bindings as an import from another
// system makes them, records as releases before the input rules stored
// them), and reads what a revocation recorded. Tests seed through it, never
// through a store's own type, so that they run on any store.
type Fixtures interface {
	// EnsureDevice returns the device with this fingerprint in the scope's
	// environment, creating it (active, unbound) when new.
	EnsureDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error)
	// SeedBinding binds the device to the license and opens a live runtime
	// session for it, owned by userID when not "", skipping the runtime's
	// checks. It returns the session id.
	SeedBinding(ctx context.Context, s store.Scope, licenseID, deviceID, userID string) (string, error)
	// SessionRevokeReason returns why a runtime session was revoked
	// ("status_change", "device_reset", "logout", "refresh_reused"), or ""
	// while it is live. Returns not_found.
	SessionRevokeReason(ctx context.Context, id string) (string, error)
	// SeedLegacyDevice creates a device whose fingerprint is stored exactly
	// as given, skipping the input rules.
	SeedLegacyDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error)
	// SeedLegacyRefreshToken gives a live session a new refresh token of
	// the form issued before `<session id>.<secret>` (no session id, found
	// by its hash), stored as those releases stored it, and returns it.
	SeedLegacyRefreshToken(ctx context.Context, sessionID string) (string, error)
	// SeedLegacyApplicationName renames an application exactly as given,
	// skipping the input rules.
	SeedLegacyApplicationName(ctx context.Context, ref store.AppRef, name string) error
}

// testFixtures: the fixtures skip the rules of the interfaces, and a
// session's revocation records why.
func testFixtures(t *testing.T, open Opener) {
	f := newFixture(t, open)
	if f.fx == nil {
		t.Fatal("storetest: the harness has no Fixtures")
	}
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("One seat"), MaxDevices: ptr(1)}, 1)
	lic := gen[0].ID
	t.Run("EnsureDevice", func(t *testing.T) {
		d, err := f.fx.EnsureDevice(f.ctx, sc, "fixture-pc")
		if err != nil || d.Fingerprint != "fixture-pc" || d.Status != store.DeviceActive || len(d.LicenseIDs) != 0 {
			t.Fatalf("EnsureDevice = %+v, %v", d, err)
		}
		again, err := f.fx.EnsureDevice(f.ctx, sc, "fixture-pc")
		if err != nil || again.ID != d.ID {
			t.Fatalf("EnsureDevice(again) = %+v, %v; want %s", again, err, d.ID)
		}
	})
	t.Run("SeedBinding", func(t *testing.T) {
		u, err := f.be.RegisterEndUser(f.ctx, sc, "seeded@fixtures.test", Password)
		if err != nil {
			t.Fatal(err)
		}
		var sids []string
		for _, fp := range []string{"seed-1", "seed-2"} { // past max_devices: no runtime rule applies
			d, err := f.fx.EnsureDevice(f.ctx, sc, fp)
			if err != nil {
				t.Fatal(err)
			}
			sid, err := f.fx.SeedBinding(f.ctx, sc, lic, d.ID, u.ID)
			if err != nil || sid == "" {
				t.Fatalf("SeedBinding(%s) = %q, %v", fp, sid, err)
			}
			sids = append(sids, sid)
		}
		l, err := f.db.FindLicense(f.ctx, sc, lic)
		if err != nil || len(l.Devices) != 2 || l.UserID != u.ID {
			t.Fatalf("FindLicense = %+v, %v; want 2 devices of %s", l, err, u.ID)
		}
		if n, err := f.db.CountLicenseSessions(f.ctx, sc, lic); err != nil || n != 2 {
			t.Fatalf("CountLicenseSessions = %d, %v; want 2", n, err)
		}
		for _, sid := range sids {
			if r, err := f.fx.SessionRevokeReason(f.ctx, sid); err != nil || r != "" {
				t.Fatalf("SessionRevokeReason(live) = %q, %v", r, err)
			}
		}
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, lic, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
		if r, err := f.fx.SessionRevokeReason(f.ctx, sids[0]); err != nil || r != "status_change" {
			t.Fatalf("SessionRevokeReason(after suspension) = %q, %v; want status_change", r, err)
		}
		_, err = f.fx.SessionRevokeReason(f.ctx, store.NewID())
		wantCode(t, "SessionRevokeReason(unknown)", err, store.ECodeNotFound)
	})
	t.Run("SessionRevokeReason", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Reasons"), MaxDevices: ptr(5)}, 1)
		reason := func(what, sid, want string) {
			t.Helper()
			if r, err := f.fx.SessionRevokeReason(f.ctx, sid); err != nil || r != want {
				t.Fatalf("%s: SessionRevokeReason = %q, %v; want %q", what, r, err, want)
			}
		}
		out := f.activation(t, gen[0].Key, "reason-logout")
		if err := f.runtime().Logout(f.ctx, f.client(""), out.AccessToken); err != nil {
			t.Fatal(err)
		}
		reason("logout", out.SessionID, "logout")
		reused := f.activation(t, gen[0].Key, "reason-reuse")
		if _, err := f.runtime().Refresh(f.ctx, f.client(""), reused.RefreshToken); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(refreshGrace)
		_, err := f.runtime().Refresh(f.ctx, f.client(""), reused.RefreshToken)
		wantCode(t, "Refresh(retired)", err, store.ECodeRefreshReused)
		reason("refresh reuse", reused.SessionID, "refresh_reused")
		reset := f.activation(t, gen[0].Key, "reason-reset")
		dev := f.activate(t, gen[0].Key, "reason-reset")
		if err := f.db.ResetLicenseDevice(f.ctx, sc, gen[0].ID, dev.ID); err != nil {
			t.Fatal(err)
		}
		reason("device reset", reset.SessionID, "device_reset")
	})
	t.Run("Legacy", func(t *testing.T) {
		const fp, name = "legacy\x1b]0;owned\x07", "Studio \u202eevil\x1b[31m"
		d, err := f.fx.SeedLegacyDevice(f.ctx, sc, fp)
		if err != nil || d.Fingerprint != fp {
			t.Fatalf("SeedLegacyDevice = %+v, %v; want the fingerprint as given", d, err)
		}
		if err := f.fx.SeedLegacyApplicationName(f.ctx, f.ref(), name); err != nil {
			t.Fatal(err)
		}
		a, err := f.db.FindApplication(f.ctx, f.ref())
		if err != nil || a.Name != name {
			t.Fatalf("FindApplication = %+v, %v; want the name as given", a, err)
		}
		_, err = f.fx.EnsureDevice(f.ctx, sc, fp)
		wantCode(t, "EnsureDevice(what the input rules refuse)", err, store.ECodeValidation)
	})
}

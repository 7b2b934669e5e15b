package storetest

import (
	"slices"
	"testing"
	"time"

	"licensectl/store"
)

// testPortal: the self-service portal's sign-in (docs/design.md §17). A
// password opens a portal session and nothing else; a mailed link signs in
// once; a session works in its own environment only and ends at sign-out or
// after its lifetime; a reset from the portal spends the quota only on the
// end-user's own licence.
func testPortal(t *testing.T, open Opener) {
	f := newFixture(t, open)
	ps := store.PortalScope{AppID: f.app.ID}
	u, err := f.be.RegisterEndUser(f.ctx, f.scope(store.EnvProduction), "Portal@Customers.test", Password)
	if err != nil {
		t.Fatalf("RegisterEndUser: %v", err)
	}
	wantUser := func(t *testing.T, what string, ps store.PortalScope, token string) {
		t.Helper()
		got, err := f.be.PortalSessionUser(f.ctx, ps, token)
		if err != nil || got.ID != u.ID {
			t.Fatalf("%s: PortalSessionUser = %+v, %v; want %s", what, got, err, u.ID)
		}
	}
	wantNoSession := func(t *testing.T, what string, ps store.PortalScope, token string) {
		t.Helper()
		_, err := f.be.PortalSessionUser(f.ctx, ps, token)
		wantCode(t, what, err, store.ECodeInvalidToken)
	}

	t.Run("OKPassword", func(t *testing.T) {
		s, err := f.be.PortalPasswordSignIn(f.ctx, ps, " portal@customers.TEST ", Password)
		if err != nil || s.User.ID != u.ID || s.Token == "" {
			t.Fatalf("PortalPasswordSignIn = %+v, %v", s, err)
		}
		if want := f.clock.Now().Add(store.PortalSessionTTL); !s.ExpiresAt.Equal(want) {
			t.Fatalf("ExpiresAt = %v, want %v", s.ExpiresAt, want)
		}
		wantUser(t, "the new session", ps, s.Token)
		wantUser(t, "production named", store.PortalScope{AppID: f.app.ID, Env: store.EnvProduction}, s.Token)
		wantNoSession(t, "in development", store.PortalScope{AppID: f.app.ID, Env: store.EnvDevelopment}, s.Token)
		// No device and no runtime session: the portal is not a client.
		d, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{})
		if err != nil || d.Total != 0 {
			t.Fatalf("devices after a portal sign-in = %+v, %v; want none", d, err)
		}
		f.clock.Advance(store.PortalSessionTTL)
		wantNoSession(t, "after its lifetime", ps, s.Token)
	})
	t.Run("ErrInvalidCredentials", func(t *testing.T) {
		for _, c := range []struct{ email, password string }{
			{"portal@customers.test", "wrong password entirely"},
			{"nobody@customers.test", Password},
		} {
			_, err := f.be.PortalPasswordSignIn(f.ctx, ps, c.email, c.password)
			wantCode(t, "PortalPasswordSignIn("+c.email+")", err, store.ECodeInvalidCreds)
		}
		_, err := f.be.PortalPasswordSignIn(f.ctx, store.PortalScope{AppID: f.app.ID, Env: store.EnvDevelopment}, "portal@customers.test", Password)
		wantCode(t, "PortalPasswordSignIn(another environment)", err, store.ECodeInvalidCreds)
		page, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventUserLoginFailed})
		if err != nil || page.Total != 2 {
			t.Fatalf("user.login_failed entries = %+v, %v; want 2", page, err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := f.be.PortalPasswordSignIn(f.ctx, ps, "", Password)
		wantCode(t, "PortalPasswordSignIn(no address)", err, store.ECodeValidation)
	})
	t.Run("OKLinkOnce", func(t *testing.T) {
		got, link, err := f.be.PortalIssueLink(f.ctx, ps, "PORTAL@customers.test")
		if err != nil || got.ID != u.ID || link == "" {
			t.Fatalf("PortalIssueLink = %+v, %q, %v", got, link, err)
		}
		_, err = f.be.PortalLinkSignIn(f.ctx, store.PortalScope{AppID: f.app.ID, Env: store.EnvDevelopment}, link)
		wantCode(t, "PortalLinkSignIn(in development)", err, store.ECodeInvalidToken)
		if st, _ := f.be.PortalLinkState(f.ctx, link); st != store.TokenStateValid {
			t.Fatalf("a link refused in another environment is %q, want still valid", st)
		}
		s, err := f.be.PortalLinkSignIn(f.ctx, ps, link)
		if err != nil || s.User.ID != u.ID {
			t.Fatalf("PortalLinkSignIn = %+v, %v", s, err)
		}
		wantUser(t, "the link's session", ps, s.Token)
		_, err = f.be.PortalLinkSignIn(f.ctx, ps, link)
		wantCode(t, "PortalLinkSignIn(again)", err, store.ECodeInvalidToken)
		if st, _ := f.be.PortalLinkState(f.ctx, link); st != store.TokenStateUsed {
			t.Fatalf("PortalLinkState(spent) = %q", st)
		}
		// A session is no link, and a link no session.
		_, err = f.be.PortalLinkSignIn(f.ctx, ps, s.Token)
		wantCode(t, "PortalLinkSignIn(a session token)", err, store.ECodeInvalidToken)
		wantNoSession(t, "a link as a session", ps, link)
		if err := f.be.PortalSignOut(f.ctx, s.Token); err != nil {
			t.Fatalf("PortalSignOut: %v", err)
		}
		wantNoSession(t, "after sign-out", ps, s.Token)
		if err := f.be.PortalSignOut(f.ctx, s.Token); err != nil {
			t.Fatalf("PortalSignOut(again): %v", err)
		}
	})
	t.Run("OKLinkExpires", func(t *testing.T) {
		_, link, err := f.be.PortalIssueLink(f.ctx, ps, "portal@customers.test")
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(store.PortalLinkTTL)
		_, err = f.be.PortalLinkSignIn(f.ctx, ps, link)
		wantCode(t, "PortalLinkSignIn(expired)", err, store.ECodeInvalidToken)
		if st, _ := f.be.PortalLinkState(f.ctx, link); st != store.TokenStateExpired {
			t.Fatalf("PortalLinkState(expired) = %q", st)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, _, err := f.be.PortalIssueLink(f.ctx, ps, "nobody@customers.test")
		wantCode(t, "PortalIssueLink(unknown address)", err, store.ECodeNotFound)
		for _, bad := range []store.PortalScope{{AppID: store.NewID()}, {AppID: "not-an-id"}, {AppID: f.app.ID, Env: "staging"}} {
			_, err := f.be.PortalPasswordSignIn(f.ctx, bad, "portal@customers.test", Password)
			wantCode(t, "PortalPasswordSignIn(unknown application)", err, store.ECodeNotFound)
		}
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		s, err := f.be.PortalPasswordSignIn(f.ctx, ps, "portal@customers.test", Password)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.SetEndUserStatus(f.ctx, f.scope(store.EnvProduction), u.ID, store.UserBanned); err != nil {
			t.Fatal(err)
		}
		_, err = f.be.PortalPasswordSignIn(f.ctx, ps, "portal@customers.test", Password)
		wantCode(t, "PortalPasswordSignIn(banned)", err, store.ECodeForbidden)
		wantNoSession(t, "a banned end-user's session", ps, s.Token)
		if _, err := f.db.SetEndUserStatus(f.ctx, f.scope(store.EnvProduction), u.ID, store.UserActive); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ResetByUser", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Portal"), MaxDevices: ptr(2), DeviceResetLimit: ptr(1), DeviceResetWindowDays: ptr(30)}, 2)
		mine, theirs := gen[0], gen[1]
		if _, err := f.db.UpdateLicense(f.ctx, f.scope(store.EnvProduction), mine.ID, store.LicenseUpdate{UserID: &u.ID}); err != nil {
			t.Fatal(err)
		}
		d1 := f.activate(t, mine.Key, "portal-one")
		d2 := f.activate(t, mine.Key, "portal-two")
		dt := f.activate(t, theirs.Key, "portal-theirs")
		reset := func(key, id string) (int, error) {
			return f.runtime().ResetDevice(f.ctx, store.RuntimeClient{AppID: f.app.ID}, store.DeviceResetInput{LicenseKey: key, DeviceID: id, ByUser: u.ID})
		}
		_, err := reset(theirs.Key, dt.ID)
		wantCode(t, "ResetDevice(another's licence)", err, store.ECodeNotFound)
		n, err := reset(mine.Key, d1.ID)
		if err != nil || n != 0 {
			t.Fatalf("ResetDevice(by the owner) = %d, %v; want 0 left", n, err)
		}
		_, err = reset(mine.Key, d2.ID)
		wantCode(t, "ResetDevice(quota spent)", err, store.ECodeResetLimit)
		if e := store.AsError(err); e == nil || e.RetryAfter != int((30*24*time.Hour)/time.Second) {
			t.Fatalf("RetryAfter = %+v, want the 30 days until the reset leaves the window", e)
		}
		page, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventLicenseDeviceReset})
		if err != nil || page.Total != 1 {
			t.Fatalf("reset entries = %+v, %v", page, err)
		}
		e := page.Data[0]
		if e.Actor.Type != store.ActorUser || e.Actor.ID != u.ID || e.Metadata["by"] != "portal" || e.Metadata["device_id"] != d1.ID {
			t.Fatalf("the portal reset's entry = %+v", e)
		}
		p, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{LicenseID: mine.ID})
		if err != nil || p.Total != 1 || p.Data[0].ID != d2.ID || slices.Contains(p.Data[0].LicenseIDs, "") {
			t.Fatalf("devices left on the licence = %+v, %v", p, err)
		}
	})
	t.Run("ErrDisabledApplication", func(t *testing.T) {
		if err := f.db.DeleteApplication(f.ctx, f.ref(), false); err != nil {
			t.Fatal(err)
		}
		_, err := f.be.PortalPasswordSignIn(f.ctx, ps, "portal@customers.test", Password)
		wantCode(t, "PortalPasswordSignIn(disabled application)", err, store.ECodeNotFound)
	})
}

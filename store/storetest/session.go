package storetest

import (
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// testRefresh: a refresh rotates the pair; a token retired by the last
// rotation is forgiven for the grace (refresh_token_rotated) and is reuse
// after it, which ends the session; older retired tokens are reuse at once.
func testRefresh(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Refreshed"), MaxDevices: ptr(10)}, 1)
	key := gen[0].Key
	refresh := func(rt store.RuntimeBackend, tok string) (*store.RuntimeSession, error) {
		return rt.Refresh(f.ctx, f.client(""), tok)
	}
	t.Run("OKRotation", func(t *testing.T) {
		a := f.activation(t, key, "rot-pc")
		f.clock.Advance(time.Minute)
		b, err := refresh(f.runtime(), a.RefreshToken)
		if err != nil || b.SessionID != a.SessionID || b.AccessToken == a.AccessToken || b.RefreshToken == a.RefreshToken ||
			!b.AccessExpiresAt.Equal(f.clock.Now().Add(accessTTL)) || !b.RefreshExpiresAt.Equal(f.clock.Now().Add(refreshIdleTTL)) {
			t.Fatalf("Refresh = %+v, %v; want a new pair of session %s", b, err, a.SessionID)
		}
		f.wantReason(t, "the rotated access token", a.AccessToken, store.ReasonTokenInvalid)
		f.wantReason(t, "the new access token", b.AccessToken, "")
		if _, err := refresh(f.runtime(), b.RefreshToken); err != nil {
			t.Fatalf("Refresh(the new refresh token): %v", err)
		}
	})
	t.Run("ErrInvalidToken", func(t *testing.T) {
		_, err := refresh(f.runtime(), "")
		wantCode(t, "Refresh(empty)", err, store.ECodeInvalidToken)
		_, err = refresh(f.runtime(), "conformance.unknown")
		wantCode(t, "Refresh(unknown)", err, store.ECodeInvalidToken)
		a := f.activation(t, key, "env-pc")
		_, err = f.runtime().Refresh(f.ctx, f.client(store.EnvDevelopment), a.RefreshToken)
		wantCode(t, "Refresh(other environment)", err, store.ECodeInvalidToken)
	})
	t.Run("ErrRefreshTokenReused", func(t *testing.T) {
		a := f.activation(t, key, "reuse-pc")
		b, err := refresh(f.runtime(), a.RefreshToken)
		if err != nil {
			t.Fatal(err)
		}
		c, err := refresh(f.runtime(), b.RefreshToken)
		if err != nil {
			t.Fatal(err)
		}
		// Retired by an earlier rotation than the last: reuse even within the grace.
		_, err = refresh(f.runtime(), a.RefreshToken)
		wantCode(t, "Refresh(retired two rotations ago)", err, store.ECodeRefreshReused)
		f.wantReason(t, "the session after reuse", c.AccessToken, store.ReasonSessionRevoked)
		_, err = refresh(f.runtime(), c.RefreshToken)
		wantCode(t, "Refresh(current token of the revoked session)", err, store.ECodeSessionInvalid)
		// Another retired token of the session ended already: refused as
		// reuse again, the session revoked and recorded once.
		_, err = refresh(f.runtime(), b.RefreshToken)
		wantCode(t, "Refresh(another retired token after the revocation)", err, store.ECodeRefreshReused)
		audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventSessionRefreshReused})
		if err != nil || audit.Total != 1 || audit.Data[0].Target.ID != a.SessionID {
			t.Fatalf("session.refresh_reused entries = %+v, %v; want the session's", audit, err)
		}
	})
	t.Run("ErrReusedLongAfterRetiring", func(t *testing.T) {
		// However many rotations ago a token was retired, presenting it is
		// reuse (docs/design.md §5): the session keeps the hashes of only a
		// few, and recognizes the others by their tag.
		a := f.activation(t, key, "long-reuse-pc")
		tokens := []string{a.RefreshToken}
		var cur *store.RuntimeSession
		for range 12 {
			f.clock.Advance(time.Minute)
			next, err := refresh(f.runtime(), tokens[len(tokens)-1])
			if err != nil {
				t.Fatal(err)
			}
			tokens, cur = append(tokens, next.RefreshToken), next
		}
		_, err := refresh(f.runtime(), tokens[0])
		wantCode(t, "Refresh(retired twelve rotations ago)", err, store.ECodeRefreshReused)
		f.wantReason(t, "the session after reuse", cur.AccessToken, store.ReasonSessionRevoked)
		_, err = refresh(f.runtime(), tokens[1])
		wantCode(t, "Refresh(another old token of the revoked session)", err, store.ECodeRefreshReused)
	})
	t.Run("OKGrace", func(t *testing.T) {
		a := f.activation(t, key, "grace-pc")
		b, err := refresh(f.runtime(), a.RefreshToken)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(refreshGrace - time.Second)
		_, err = refresh(f.runtime(), a.RefreshToken)
		wantCode(t, "Refresh(retired within the grace)", err, store.ECodeRefreshRotated)
		f.wantReason(t, "the session within the grace", b.AccessToken, "")
		f.clock.Advance(time.Second)
		_, err = refresh(f.runtime(), a.RefreshToken)
		wantCode(t, "Refresh(retired after the grace)", err, store.ECodeRefreshReused)
		f.wantReason(t, "the session after the grace", b.AccessToken, store.ReasonSessionRevoked)
	})
	t.Run("ErrGraceOff", func(t *testing.T) {
		o := runtimeOptions()
		o.RefreshReuseGrace = 0
		rt := f.be.OpenRuntime(o)
		a := f.activation(t, key, "nograce-pc")
		if _, err := refresh(rt, a.RefreshToken); err != nil {
			t.Fatal(err)
		}
		_, err := refresh(rt, a.RefreshToken)
		wantCode(t, "Refresh(retired, no grace)", err, store.ECodeRefreshReused)
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		a := f.activation(t, key, "idle-pc")
		f.clock.Advance(accessTTL)
		f.wantReason(t, "an access token at its expiry", a.AccessToken, store.ReasonTokenExpired)
		b, err := refresh(f.runtime(), a.RefreshToken)
		if err != nil {
			t.Fatalf("Refresh(expired access token): %v", err)
		}
		f.clock.Advance(refreshIdleTTL)
		_, err = refresh(f.runtime(), b.RefreshToken)
		wantCode(t, "Refresh(idle past its lifetime)", err, store.ECodeSessionInvalid)
	})
	t.Run("OKSessionIDForm", func(t *testing.T) {
		a := f.activation(t, key, "sid-pc")
		other := f.activation(t, key, "sid-other-pc")
		sid, secret, ok := strings.Cut(a.RefreshToken, ".")
		if !ok || sid != a.SessionID || secret == "" {
			t.Fatalf("refresh token %q; want %s.<secret>", a.RefreshToken, a.SessionID)
		}
		// Naming a session is no proof of holding it: a wrong secret, or
		// this secret under another session's id, is unknown and revokes
		// nothing.
		_, otherSecret, _ := strings.Cut(other.RefreshToken, ".")
		i := len(secret) - 5 // inside the tag
		badTag := secret[:i] + map[bool]string{true: "A", false: "B"}[secret[i] != 'A'] + secret[i+1:]
		for _, forged := range []string{sid + ".forged", sid + "." + secret + "x", other.SessionID + "." + secret, sid + "." + otherSecret, sid + "." + badTag, "not-an-id." + secret} {
			_, err := refresh(f.runtime(), forged)
			wantCode(t, "Refresh("+forged+")", err, store.ECodeInvalidToken)
		}
		f.wantReason(t, "the session after forged refreshes", a.AccessToken, "")
		b, err := refresh(f.runtime(), a.RefreshToken)
		if err != nil || !strings.HasPrefix(b.RefreshToken, a.SessionID+".") || b.RefreshToken == a.RefreshToken {
			t.Fatalf("Refresh = %+v, %v; want a new token of session %s", b, err, a.SessionID)
		}
		f.clock.Advance(refreshGrace)
		_, err = refresh(f.runtime(), a.RefreshToken)
		wantCode(t, "Refresh(retired after the grace)", err, store.ECodeRefreshReused)
		f.wantReason(t, "the other session", other.AccessToken, "")
	})
	t.Run("OKLegacyForm", func(t *testing.T) {
		a := f.activation(t, key, "legacy-refresh-pc")
		legacy, err := f.fx.SeedLegacyRefreshToken(f.ctx, a.SessionID)
		if err != nil || strings.Contains(legacy, ".") {
			t.Fatalf("SeedLegacyRefreshToken = %q, %v; want a token without a session id", legacy, err)
		}
		b, err := refresh(f.runtime(), legacy)
		if err != nil || b.SessionID != a.SessionID || !strings.HasPrefix(b.RefreshToken, a.SessionID+".") {
			t.Fatalf("Refresh(legacy) = %+v, %v; want a new-form pair of session %s", b, err, a.SessionID)
		}
		f.clock.Advance(refreshGrace - time.Second)
		_, err = refresh(f.runtime(), legacy)
		wantCode(t, "Refresh(legacy, retired within the grace)", err, store.ECodeRefreshRotated)
		f.clock.Advance(time.Second)
		_, err = refresh(f.runtime(), legacy)
		wantCode(t, "Refresh(legacy, retired after the grace)", err, store.ECodeRefreshReused)
		f.wantReason(t, "the session after legacy reuse", b.AccessToken, store.ReasonSessionRevoked)
	})
}

// testRefreshParallel: many refreshes of one token at once: one wins, the
// others are told it rotated, and the session lives on.
func testRefreshParallel(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Raced")}, 1)
	a := f.activation(t, gen[0].Key, "race-pc")
	var winner *store.RuntimeSession
	won := make(chan *store.RuntimeSession, 8)
	codes := parallel(8, func(int) error {
		s, err := f.runtime().Refresh(f.ctx, f.client(""), a.RefreshToken)
		if err == nil {
			won <- s
		}
		return err
	})
	if n := tally(t, "parallel refreshes", codes, "", store.ECodeRefreshRotated); n[""] != 1 {
		t.Fatalf("%d refreshes won, want 1 (%q)", n[""], codes)
	}
	winner = <-won
	f.wantReason(t, "the winner's access token", winner.AccessToken, "")
	if _, err := f.runtime().Refresh(f.ctx, f.client(""), winner.RefreshToken); err != nil {
		t.Fatalf("Refresh(the winner's token): %v", err)
	}
	audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventSessionRefreshReused})
	if err != nil || audit.Total != 0 {
		t.Fatalf("session.refresh_reused entries after parallel refreshes = %+v, %v; want none", audit, err)
	}
}

// testCascade: validation reports the first reason of docs/design.md §5's order:
// application, license, user, device, session, token expiry.
func testCascade(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	ent, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "render", Name: "Render"})
	if err != nil {
		t.Fatal(err)
	}
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Cascade"), MaxDevices: ptr(5), EntitlementIDs: &[]string{ent.ID}}, 2)
	u, us := f.endUser(t, "cascade@runtime.test", "cascade-pc")
	a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "cascade-pc", UserToken: us.AccessToken, Replay: f.replay()})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OKValid", func(t *testing.T) {
		v := f.wantReason(t, "a fresh session", a.AccessToken, "")
		if len(v.Entitlements) != 1 || v.Entitlements[0] != "render" || !v.ExpiresAt.Equal(a.AccessExpiresAt) {
			t.Fatalf("Validate = %+v; want [render] until %v", v, a.AccessExpiresAt)
		}
		login := f.wantReason(t, "the user's login session", us.AccessToken, "")
		if len(login.Entitlements) != 1 || login.Entitlements[0] != "render" {
			t.Fatalf("the login session's entitlements = %v; want those of the user's license", login.Entitlements)
		}
	})
	t.Run("OKOrder", func(t *testing.T) {
		dev := f.activate(t, gen[1].Key, "cascade-pc")
		steps := []struct {
			reason     string
			fail, mend func() error
		}{
			{store.ReasonAppDisabled, func() error { return f.db.DeleteApplication(f.ctx, f.ref(), false) }, func() error {
				_, err := f.db.UpdateApplication(f.ctx, f.ref(), store.ApplicationUpdate{Status: ptr(store.AppActive)})
				return err
			}},
			{store.ReasonLicenseSuspended, func() error {
				_, err := f.db.SetLicenseStatus(f.ctx, sc, gen[0].ID, store.LicenseSuspended)
				return err
			}, func() error {
				_, err := f.db.SetLicenseStatus(f.ctx, sc, gen[0].ID, store.LicenseActive)
				return err
			}},
			{store.ReasonUserDisabled, func() error {
				_, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, store.UserDisabled)
				return err
			}, func() error {
				_, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, store.UserActive)
				return err
			}},
			{store.ReasonDeviceBlocked, func() error {
				_, err := f.db.SetDeviceStatus(f.ctx, sc, dev.ID, store.DeviceBlocked)
				return err
			}, func() error {
				_, err := f.db.SetDeviceStatus(f.ctx, sc, dev.ID, store.DeviceActive)
				return err
			}},
		}
		// Everything fails at once, from the last check up; then each
		// mended check uncovers the next.
		for i := len(steps) - 1; i >= 0; i-- {
			if err := steps[i].fail(); err != nil {
				t.Fatalf("making %s: %v", steps[i].reason, err)
			}
		}
		for _, st := range steps {
			f.wantReason(t, "with "+st.reason+" first", a.AccessToken, st.reason)
			if err := st.mend(); err != nil {
				t.Fatalf("mending %s: %v", st.reason, err)
			}
		}
		// Suspending the license ended the session: that is all that is left.
		f.wantReason(t, "with every record mended", a.AccessToken, store.ReasonSessionRevoked)
	})
	t.Run("OKTokenExpired", func(t *testing.T) {
		b := f.activation(t, gen[1].Key, "expiry-pc")
		f.clock.Advance(accessTTL - time.Second)
		f.wantReason(t, "just before expiry", b.AccessToken, "")
		f.clock.Advance(time.Second)
		f.wantReason(t, "at expiry", b.AccessToken, store.ReasonTokenExpired)
		if err := f.runtime().Logout(f.ctx, f.client(""), b.AccessToken); err != nil {
			t.Fatal(err)
		}
		f.wantReason(t, "revoked and expired", b.AccessToken, store.ReasonSessionRevoked)
	})
	t.Run("OKLicenseAndUser", func(t *testing.T) {
		g := newFixture(t, open)
		gsc := g.scope(store.EnvProduction)
		lic := g.dated(t, "Lapsing", g.clock.Now().Add(accessTTL/2))
		gu, gs := g.endUser(t, "lapsing@runtime.test", "lapsing-pc")
		la, err := g.runtime().Activate(g.ctx, g.client(""), store.ActivateInput{LicenseKey: lic.Key, Fingerprint: "lapsing-pc", UserToken: gs.AccessToken, Replay: g.replay()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.db.SetEndUserStatus(g.ctx, gsc, gu.ID, store.UserBanned); err != nil {
			t.Fatal(err)
		}
		g.clock.Advance(accessTTL / 2)
		g.wantReason(t, "an expired license of a banned user", la.AccessToken, store.ReasonLicenseExpired)
		g.wantReason(t, "a banned user's login session", gs.AccessToken, store.ReasonUserBanned)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		f.wantReason(t, "no token", "", store.ReasonTokenInvalid)
		f.wantReason(t, "an unknown token", "conformance.unknown", store.ReasonTokenInvalid)
		// A token names its session in the clear; naming a live one proves
		// nothing without the token the session was issued.
		g := newFixture(t, open)
		_, glic := g.licenses(t, store.PlanInput{Name: ptr("Named")}, 1)
		live := g.activation(t, glic[0].Key, "named-pc")
		forged := "conformance.production." + live.SessionID + ".forged"
		g.wantReason(t, "a token naming a live session", forged, store.ReasonTokenInvalid)
		g.wantReason(t, "a token naming a malformed session id", "conformance.production.not-an-id.forged", store.ReasonTokenInvalid)
		if err := g.runtime().Logout(g.ctx, g.client(""), forged); store.ErrorCode(err) != store.ECodeInvalidToken {
			t.Fatalf("Logout(a token naming a live session) = %v; want invalid_token", err)
		}
		g.wantReason(t, "the session after a forged logout", live.AccessToken, "")
		v, err := f.runtime().Validate(f.ctx, f.client(store.EnvDevelopment), a.AccessToken)
		if err != nil || v.Valid || v.Reason != store.ReasonTokenInvalid {
			t.Fatalf("Validate(other environment) = %+v, %v; want token_invalid", v, err)
		}
		_, err = f.runtime().Validate(f.ctx, store.RuntimeClient{AppID: store.NewID()}, a.AccessToken)
		wantCode(t, "Validate(unknown application)", err, store.ECodeInvalidApp)
	})
}

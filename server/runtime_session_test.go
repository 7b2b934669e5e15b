package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

func TestRuntimeRegister(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	t.Run("OK", func(t *testing.T) {
		f.register(t, "new@example.com")
	})
	t.Run("ErrEmailTaken", func(t *testing.T) {
		f.do(t, "POST", "/auth/register", map[string]any{"email": "New@example.com", "password": servertest.Password}).WantError(t, http.StatusConflict, "email_taken")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f.do(t, "POST", "/auth/register", map[string]any{"email": "nope", "password": servertest.Password}).WantError(t, http.StatusBadRequest, "validation_failed")
		f.do(t, "POST", "/auth/register", map[string]any{"email": "x@example.com", "password": "short"}).WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrInvalidApplication", func(t *testing.T) {
		f.s.Do(t, "POST", "/v1/runtime/auth/register", map[string]any{"email": "y@example.com", "password": servertest.Password}).WantError(t, http.StatusUnauthorized, "invalid_application")
	})
}

func TestRuntimeLogin(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	uid := f.register(t, "carol@example.com")
	t.Run("OK", func(t *testing.T) {
		s := f.login(t, "carol@example.com", "carol-pc")
		if got := f.wantValid(t, s.AccessToken); len(got) != 0 {
			t.Fatalf("entitlements = %v", got)
		}
		if d := f.device(t, "carol-pc"); d.UserID == nil || *d.UserID != uid {
			t.Fatalf("device = %+v", d)
		}
	})
	t.Run("ErrInvalidCredentials", func(t *testing.T) {
		f.do(t, "POST", "/auth/login", f.loginBody("carol@example.com", "wrong password 1", "carol-pc")).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		f.do(t, "POST", "/auth/login", f.loginBody("nobody@example.com", servertest.Password, "carol-pc")).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		// Another environment has its own users.
		f.s.Do(t, "POST", "/v1/runtime/auth/login", f.loginBody("carol@example.com", servertest.Password, "carol-pc"), "x-api-key", f.devPub).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		b := f.loginBody("carol@example.com", servertest.Password, "carol-pc")
		delete(b, "nonce")
		f.do(t, "POST", "/auth/login", b).WantError(t, http.StatusBadRequest, "validation_failed")
		f.do(t, "POST", "/auth/login", f.loginBody("carol@example.com", servertest.Password, "")).WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrDeviceBlocked", func(t *testing.T) {
		f.login(t, "carol@example.com", "carol-blocked")
		f.setStatus(t, "devices", f.device(t, "carol-blocked").ID, store.DeviceBlocked)
		f.do(t, "POST", "/auth/login", f.loginBody("carol@example.com", servertest.Password, "carol-blocked")).WantError(t, http.StatusForbidden, "device_blocked")
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		id := f.register(t, "dave@example.com")
		f.setStatus(t, "users", id, store.UserBanned)
		f.do(t, "POST", "/auth/login", f.loginBody("dave@example.com", servertest.Password, "dave-pc")).WantError(t, http.StatusForbidden, "forbidden")
	})
	t.Run("Audit", func(t *testing.T) {
		for event, min := range map[string]int{"user.login": 1, "user.login_failed": 2} {
			var page struct {
				Total int `json:"total"`
			}
			f.mgmt(t, "GET", "/audit-logs?event="+event, nil).Want(t, http.StatusOK).JSON(t, &page)
			if page.Total < min {
				t.Fatalf("%s entries = %d", event, page.Total)
			}
		}
	})
}

func TestRuntimeLogout(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{})
	s := f.activate(t, key, "logout-pc")
	t.Run("OK", func(t *testing.T) {
		m := f.do(t, "POST", "/auth/logout", map[string]any{"access_token": s.AccessToken}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "success")
		f.wantReason(t, s.AccessToken, "session_revoked")
		f.do(t, "POST", "/auth/logout", map[string]any{"access_token": s.AccessToken}).Want(t, http.StatusOK) // idempotent
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).WantError(t, http.StatusUnauthorized, "session_invalid")
	})
	t.Run("ErrInvalidToken", func(t *testing.T) {
		f.do(t, "POST", "/auth/logout", map[string]any{"access_token": "garbage"}).WantError(t, http.StatusUnauthorized, "invalid_token")
		f.do(t, "POST", "/auth/logout", map[string]any{}).WantError(t, http.StatusUnauthorized, "invalid_token")
		other := f.activate(t, f.license(t, planOpts{}), "logout-pc-2")
		f.s.Do(t, "POST", "/v1/runtime/auth/logout", map[string]any{"access_token": other.AccessToken}, "x-api-key", f.devPub).WantError(t, http.StatusUnauthorized, "invalid_token")
	})
}

func TestRuntimeValidate(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	t.Run("TokenInvalid", func(t *testing.T) {
		f.wantReason(t, "garbage", "token_invalid")
		f.wantReason(t, "", "token_invalid")
		s := f.activate(t, f.license(t, planOpts{}), "ti-pc")
		m := f.s.Do(t, "POST", "/v1/runtime/sessions/validate", map[string]any{"access_token": s.AccessToken}, "x-api-key", f.devPub).Want(t, http.StatusOK).Map(t)
		if m["reason"] != "token_invalid" {
			t.Fatalf("another environment = %v", m)
		}
		g := attachRT(t, f.s)
		m = g.validate(t, s.AccessToken)
		if m["reason"] != "token_invalid" {
			t.Fatalf("another application = %v", m)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f.do(t, "POST", "/sessions/validate", `{"access_token": 5}`).WantError(t, http.StatusBadRequest, "validation_failed")
		f.do(t, "POST", "/sessions/validate", `{"access_token"`).WantError(t, http.StatusBadRequest, "invalid_json")
		f.do(t, "POST", "/sessions/validate", `{"extra": 1, "access_token": "x"}`).WantError(t, http.StatusBadRequest, "validation_failed")
		m := f.do(t, "POST", "/sessions/validate", ` { "access_token" : "x\u0041" } `).Want(t, http.StatusOK).Map(t)
		if m["reason"] != "token_invalid" {
			t.Fatalf("validate = %v", m)
		}
	})
	t.Run("ErrInvalidApplication", func(t *testing.T) {
		f.s.Do(t, "POST", "/v1/runtime/sessions/validate", map[string]any{"access_token": "x"}).WantError(t, http.StatusUnauthorized, "invalid_application")
	})
	licenseCase := func(t *testing.T, status, reason string) {
		key := f.license(t, planOpts{})
		s := f.activate(t, key, "lc-"+status)
		f.wantValid(t, s.AccessToken)
		f.setStatus(t, "licenses", f.ids[key], status)
		f.wantReason(t, s.AccessToken, reason)
		if status == store.LicenseSuspended {
			// Reinstating does not bring revoked sessions back.
			f.setStatus(t, "licenses", f.ids[key], store.LicenseActive)
			f.wantReason(t, s.AccessToken, "session_revoked")
		}
	}
	t.Run("LicenseRevoked", func(t *testing.T) { licenseCase(t, store.LicenseRevoked, "license_revoked") })
	t.Run("LicenseSuspended", func(t *testing.T) { licenseCase(t, store.LicenseSuspended, "license_suspended") })
	t.Run("LicenseBanned", func(t *testing.T) { licenseCase(t, store.LicenseBanned, "license_banned") })
	t.Run("LicenseExpired", func(t *testing.T) {
		exp := f.s.Clock().Now().Add(10 * time.Minute)
		s := f.activate(t, f.license(t, planOpts{expiresAt: &exp}), "lc-expired")
		f.wantValid(t, s.AccessToken)
		f.s.Clock().Advance(11 * time.Minute)
		f.wantReason(t, s.AccessToken, "license_expired")
	})
	userCase := func(t *testing.T, email, status, reason string) {
		id := f.register(t, email)
		s := f.login(t, email, email+"-pc")
		f.wantValid(t, s.AccessToken)
		f.setStatus(t, "users", id, status)
		f.wantReason(t, s.AccessToken, reason)
	}
	t.Run("UserBanned", func(t *testing.T) { userCase(t, "banned@example.com", store.UserBanned, "user_banned") })
	t.Run("UserDisabled", func(t *testing.T) { userCase(t, "disabled@example.com", store.UserDisabled, "user_disabled") })
	t.Run("DeviceBlocked", func(t *testing.T) {
		s := f.activate(t, f.license(t, planOpts{}), "dev-blocked")
		f.setStatus(t, "devices", f.device(t, "dev-blocked").ID, store.DeviceBlocked)
		f.wantReason(t, s.AccessToken, "device_blocked")
	})
	t.Run("TokenExpired", func(t *testing.T) {
		s := f.activate(t, f.license(t, planOpts{}), "expiring")
		f.s.Clock().Advance(f.s.Config.Runtime.AccessTTL)
		f.wantReason(t, s.AccessToken, "token_expired")
		// The refresh token still works and gives a valid access token.
		var n session
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).Want(t, http.StatusOK).JSON(t, &n)
		f.wantValid(t, n.AccessToken)
	})
	t.Run("ApplicationDisabled", func(t *testing.T) {
		g := attachRT(t, f.s)
		s := g.activate(t, g.license(t, planOpts{}), "app-off")
		g.s.As(t, g.org.APIKey, "PATCH", "/v1/mgmt/applications/"+g.appID, map[string]any{"status": "disabled"}).Want(t, http.StatusOK)
		g.wantReason(t, s.AccessToken, "application_disabled")
		g.wantReason(t, "garbage", "token_invalid") // token_invalid comes first
		g.do(t, "GET", "/entitlements/check?key=x", nil, "Authorization", "Bearer "+s.AccessToken).WantError(t, http.StatusForbidden, "application_disabled")
		g.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).WantError(t, http.StatusForbidden, "application_disabled")
	})
	t.Run("RootCauseOrder", func(t *testing.T) {
		// Device blocked, then license suspended: the license is reported.
		key := f.license(t, planOpts{})
		s := f.activate(t, key, "order-pc")
		f.setStatus(t, "devices", f.device(t, "order-pc").ID, store.DeviceBlocked)
		f.setStatus(t, "licenses", f.ids[key], store.LicenseSuspended)
		f.wantReason(t, s.AccessToken, "license_suspended")
	})
}

func TestRuntimeRefresh(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{ents: []string{"pro"}})
	s := f.activate(t, key, "refresh-pc")
	t.Run("OK", func(t *testing.T) {
		r := f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).Want(t, http.StatusOK)
		servertest.WantKeys(t, r.Map(t), "access_token", "refresh_token", "access_expires_at", "refresh_expires_at")
		var n session
		r.JSON(t, &n)
		if n.RefreshToken == s.RefreshToken || n.AccessToken == s.AccessToken {
			t.Fatal("tokens not rotated")
		}
		f.wantValid(t, n.AccessToken)
		f.wantReason(t, s.AccessToken, "token_invalid") // the old access token is retired
		s = n
	})
	t.Run("ErrRefreshTokenReused", func(t *testing.T) {
		old := s
		var n session
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": old.RefreshToken}).Want(t, http.StatusOK).JSON(t, &n)
		f.s.Clock().Advance(f.s.Config.Runtime.RefreshReuseGrace) // past the grace of parallel refreshes
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": old.RefreshToken}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
		// Reuse revokes the whole session, the current pair included.
		f.wantReason(t, n.AccessToken, "session_revoked")
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": n.RefreshToken}).WantError(t, http.StatusUnauthorized, "session_invalid")
		f.wantAudit(t, "session.refresh_reused", 1)
	})
	t.Run("ErrInvalidToken", func(t *testing.T) {
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": "nope"}).WantError(t, http.StatusUnauthorized, "invalid_token")
		f.do(t, "POST", "/sessions/refresh", map[string]any{}).WantError(t, http.StatusUnauthorized, "invalid_token")
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		k := f.license(t, planOpts{})
		s := f.activate(t, k, "refresh-susp")
		f.setStatus(t, "licenses", f.ids[k], store.LicenseSuspended)
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).WantError(t, http.StatusUnauthorized, "session_invalid")
		// An idle refresh token expires.
		s2 := f.activate(t, f.license(t, planOpts{}), "refresh-idle")
		f.s.Clock().Advance(f.s.Config.Runtime.RefreshIdleTTL + time.Second)
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s2.RefreshToken}).WantError(t, http.StatusUnauthorized, "session_invalid")
	})
}

func TestRuntimeEntitlementCheck(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{ents: []string{"export"}, extra: []string{"beta"}})
	s := f.activate(t, key, "check-pc")
	check := func(k, tok string) *servertest.Resp {
		return f.do(t, "GET", "/entitlements/check?key="+k, nil, "Authorization", "Bearer "+tok)
	}
	t.Run("OK", func(t *testing.T) {
		for k, want := range map[string]bool{"export": true, "beta": true, "unknown": false} {
			m := check(k, s.AccessToken).Want(t, http.StatusOK).Map(t)
			servertest.WantKeys(t, m, "granted")
			if m["granted"] != want {
				t.Fatalf("%s granted = %v", k, m["granted"])
			}
		}
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		check("export", "garbage").WantError(t, http.StatusUnauthorized, "session_invalid")
		f.do(t, "GET", "/entitlements/check?key=export", nil).WantError(t, http.StatusUnauthorized, "session_invalid")
		f.setStatus(t, "licenses", f.ids[key], store.LicenseRevoked)
		check("export", s.AccessToken).WantError(t, http.StatusUnauthorized, "session_invalid")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f.do(t, "GET", "/entitlements/check", nil, "Authorization", "Bearer "+s.AccessToken).WantError(t, http.StatusBadRequest, "validation_failed")
	})
}

func TestRuntimeLastSeenFlushed(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	s := f.activate(t, f.license(t, planOpts{}), "seen-pc")
	if d := f.device(t, "seen-pc"); d.LastSeenAt == nil || !d.LastSeenAt.Equal(f.s.Clock().Now()) {
		t.Fatalf("last_seen_at after activation = %v", d.LastSeenAt)
	}
	// Within 5 minutes a validation queues nothing; later it queues the
	// device, and the flusher (at the latest at shutdown) writes it:
	// validation itself never writes.
	f.s.Clock().Advance(time.Minute)
	f.wantValid(t, s.AccessToken)
	f.s.Clock().Advance(5 * time.Minute)
	f.wantValid(t, s.AccessToken)
	want := f.s.Clock().Now()
	if d := f.device(t, "seen-pc"); d.LastSeenAt.Equal(want) {
		t.Fatal("validation wrote last_seen_at itself")
	}
	cfg := f.s.Config
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	f.s = servertest.Start(t, cfg)
	if d := f.device(t, "seen-pc"); d.LastSeenAt == nil || !d.LastSeenAt.Equal(want) {
		t.Fatalf("last_seen_at = %v, want %v", d.LastSeenAt, want)
	}
}

func TestRuntimeUsageCounter(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	for i := 0; i < 5; i++ {
		f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
	}
	cfg := f.s.Config
	now := f.s.Clock().Now()
	if err := f.s.Close(); err != nil { // flushes the counter
		t.Fatal(err)
	}
	s2 := servertest.Start(t, cfg)
	db := s2.Store()
	rt := db.OpenRuntime(store.RuntimeOptions{})
	n, err := rt.RuntimeRequests(context.Background(), f.org.ID, now)
	if err != nil || n != 5 {
		t.Fatalf("runtime requests = %d, %v; want 5", n, err)
	}
}

func TestRuntimeNonceSweep(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 5})
	b := f.activateBody(key, "sweep-1")
	f.do(t, "POST", "/licenses/activate", b).Want(t, http.StatusOK)
	rt := f.s.Store().OpenRuntime(store.RuntimeOptions{})
	if n, err := rt.SweepNonces(context.Background(), 100); err != nil || n != 0 {
		t.Fatalf("sweep within the window = %d, %v", n, err)
	}
	f.do(t, "POST", "/licenses/activate", b).WantError(t, http.StatusConflict, "nonce_reused")
	// A store may keep a spent nonce up to a minute past its window
	// (store.RuntimeBackend.SweepNonces).
	f.s.Clock().Advance(f.s.Config.Runtime.ReplayWindow + time.Minute)
	if n, err := rt.SweepNonces(context.Background(), 100); err != nil || n < 1 {
		t.Fatalf("sweep a minute after the window = %d, %v", n, err)
	}
	// Past the window the timestamp itself is stale.
	f.do(t, "POST", "/licenses/activate", b).WantError(t, http.StatusUnauthorized, "stale_timestamp")
}

func TestRuntimeRefreshRetiredWindow(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	s := f.activate(t, f.license(t, planOpts{}), "window-pc")
	tokens := []string{s.RefreshToken}
	for i := 0; i < 6; i++ {
		var n session
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tokens[len(tokens)-1]}).Want(t, http.StatusOK).JSON(t, &n)
		tokens = append(tokens, n.RefreshToken)
	}
	var n session
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tokens[len(tokens)-1]}).Want(t, http.StatusOK).JSON(t, &n)
	// The oldest token's hash has left the session's kept list; its tag still
	// says the session issued it, so it is reuse like any retired token
	// (docs/design.md §5), and the session ends.
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tokens[0]}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
	f.wantReason(t, n.AccessToken, "session_revoked")
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tokens[len(tokens)-3]}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
}

func TestRuntimeSessionSweep(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	s := f.activate(t, f.license(t, planOpts{maxDevices: 2}), "sweep-pc")
	rt := f.s.Store().OpenRuntime(store.RuntimeOptions{})
	if n, err := rt.SweepSessions(context.Background(), 100); err != nil || n != 0 {
		t.Fatalf("sweep of live sessions = %d, %v", n, err)
	}
	f.s.Clock().Advance(f.s.Config.Runtime.RefreshAbsoluteTTL + time.Second)
	later := f.activate(t, f.license(t, planOpts{}), "sweep-pc-2")
	if n, err := rt.SweepSessions(context.Background(), 100); err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v; want 1", n, err)
	}
	f.wantReason(t, s.AccessToken, "token_invalid")
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).WantError(t, http.StatusUnauthorized, "invalid_token")
	f.wantValid(t, later.AccessToken)
}

// TestRuntimeRefreshTokenNamesSession: a refresh token is `<session id>.<secret>`
// with the access token's sid (docs/design.md §5); naming the session with a
// wrong secret is an unknown token and leaves the session alive.
func TestRuntimeRefreshTokenNamesSession(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	s := f.activate(t, f.license(t, planOpts{}), "sid-pc")
	parts := strings.Split(s.AccessToken, ".")
	if len(parts) != 3 {
		t.Fatalf("access token %q is not a JWS", s.AccessToken)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		SID string `json:"sid"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil || claims.SID == "" {
		t.Fatalf("claims %s: %v", raw, err)
	}
	sid, secret, ok := strings.Cut(s.RefreshToken, ".")
	if !ok || sid != claims.SID || len(secret) != 65 {
		t.Fatalf("refresh token %q; want %s.<65 characters of secret and tag>", s.RefreshToken, claims.SID)
	}
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": sid + ".forged"}).WantError(t, http.StatusUnauthorized, "invalid_token")
	var n session
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).Want(t, http.StatusOK).JSON(t, &n)
	if !strings.HasPrefix(n.RefreshToken, sid+".") {
		t.Fatalf("rotated refresh token %q; want session %s", n.RefreshToken, sid)
	}
	if v := f.validate(t, n.AccessToken); v["valid"] != true {
		t.Fatalf("validate(the rotated access token) = %v; want valid", v)
	}
}

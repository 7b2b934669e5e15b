package server_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

func TestRuntimeActivate(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	t.Run("OK", func(t *testing.T) {
		days := 30
		key := f.license(t, planOpts{ents: []string{"export", "pro"}, extra: []string{"beta"}, durationDays: &days, maxDevices: 2})
		r := f.do(t, "POST", "/licenses/activate", f.activateBody(key, "fp-ok-1")).Want(t, http.StatusOK)
		m := r.Map(t)
		servertest.WantKeys(t, m, "access_token", "refresh_token", "access_expires_at", "refresh_expires_at", "entitlements", "license")
		servertest.WantKeys(t, m["license"].(map[string]any), "status", "expires_at")
		servertest.WantTime(t, "access_expires_at", m["access_expires_at"])
		servertest.WantTime(t, "refresh_expires_at", m["refresh_expires_at"])
		var s session
		r.JSON(t, &s)
		if fmt.Sprint(s.Entitlements) != "[beta export pro]" || s.License.Status != "active" || s.License.ExpiresAt == nil {
			t.Fatalf("activation = %s", r.Body)
		}
		exp, _ := time.Parse(time.RFC3339Nano, *s.License.ExpiresAt)
		if want := f.s.Clock().Now().Add(30 * 24 * time.Hour); !exp.Equal(want) {
			t.Fatalf("expires_at = %v, want %v", exp, want)
		}
		l := f.lic(t, key)
		if l.ActivatedAt == nil || len(l.Devices) != 1 || l.Status != "active" || l.Devices[0].Fingerprint != "fp-ok-1" || !l.Devices[0].BoundAt.Equal(f.s.Clock().Now()) {
			t.Fatalf("license = %+v", l)
		}
		if got := f.wantValid(t, s.AccessToken); fmt.Sprint(got) != "[beta export pro]" {
			t.Fatalf("entitlements = %v", got)
		}
		// The same device again: a new session, no new binding, same expiry.
		s2 := f.activate(t, key, "fp-ok-1")
		if *s2.License.ExpiresAt != *s.License.ExpiresAt || s2.AccessToken == s.AccessToken {
			t.Fatalf("second activation = %+v", s2)
		}
		// Key input is normalized: lower case, no dashes.
		f.activate(t, strings2(key), "fp-ok-2")
		if l := f.lic(t, key); len(l.Devices) != 2 {
			t.Fatalf("devices = %v", l.Devices)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.do(t, "POST", "/licenses/activate", f.activateBody("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "fp")).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "POST", "/licenses/activate", f.activateBody("short", "fp")).WantError(t, http.StatusNotFound, "not_found")
		// A development license is unknown to production.
		key := f.license(t, planOpts{})
		f.s.Do(t, "POST", "/v1/runtime/licenses/activate", f.activateBody(key, "fp"), "x-api-key", f.devPub).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		key := f.license(t, planOpts{})
		for name, mod := range map[string]func(map[string]any){
			"license_key":        func(m map[string]any) { m["license_key"] = "" },
			"device_fingerprint": func(m map[string]any) { m["device_fingerprint"] = " " },
			"timestamp":          func(m map[string]any) { m["timestamp"] = "yesterday" },
			"no timestamp":       func(m map[string]any) { delete(m, "timestamp") },
			"short nonce":        func(m map[string]any) { m["nonce"] = "abc" },
			"long nonce":         func(m map[string]any) { m["nonce"] = string(make([]byte, 129)) },
			"unprintable nonce":  func(m map[string]any) { m["nonce"] = "0123456789abcdef\x01" },
			"wrong type":         func(m map[string]any) { m["license_key"] = 12 },
		} {
			b := f.activateBody(key, "fp-val")
			mod(b)
			r := f.do(t, "POST", "/licenses/activate", b)
			if r.Status != http.StatusBadRequest {
				t.Fatalf("%s: status %d %s", name, r.Status, r.Body)
			}
			r.WantError(t, http.StatusBadRequest, "validation_failed")
		}
		f.do(t, "POST", "/licenses/activate", "{").WantError(t, http.StatusBadRequest, "invalid_json")
	})
	t.Run("ErrDeviceLimitReached", func(t *testing.T) {
		key := f.license(t, planOpts{maxDevices: 2})
		f.activate(t, key, "lim-1")
		f.activate(t, key, "lim-2")
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "lim-3")).WantError(t, http.StatusForbidden, "device_limit_reached")
		f.activate(t, key, "lim-1") // a bound device still gets a session
	})
	t.Run("ErrTrialAlreadyUsed", func(t *testing.T) {
		keys := f.licenses(t, 2, planOpts{trial: true})
		f.activate(t, keys[0], "trial-dev")
		f.activate(t, keys[0], "trial-dev") // its own trial again is fine
		f.do(t, "POST", "/licenses/activate", f.activateBody(keys[1], "trial-dev")).WantError(t, http.StatusForbidden, "trial_already_used")
		f.activate(t, keys[1], "trial-dev-2")
	})
	t.Run("ErrLicenseStatus", func(t *testing.T) {
		for status, code := range map[string]string{"revoked": "license_revoked", "suspended": "license_suspended", "banned": "license_banned"} {
			key := f.license(t, planOpts{})
			f.setStatus(t, "licenses", f.ids[key], status)
			f.do(t, "POST", "/licenses/activate", f.activateBody(key, "st-"+status)).WantError(t, http.StatusForbidden, code)
		}
		soon := f.s.Clock().Now().Add(time.Minute)
		key := f.license(t, planOpts{expiresAt: &soon})
		f.s.Clock().Advance(2 * time.Minute)
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "st-expired")).WantError(t, http.StatusForbidden, "license_expired")
	})
	t.Run("ErrDeviceBlocked", func(t *testing.T) {
		keys := f.licenses(t, 2, planOpts{})
		f.activate(t, keys[0], "blocked-dev")
		f.setStatus(t, "devices", f.device(t, "blocked-dev").ID, store.DeviceBlocked)
		f.do(t, "POST", "/licenses/activate", f.activateBody(keys[1], "blocked-dev")).WantError(t, http.StatusForbidden, "device_blocked")
	})
	t.Run("ErrApplicationDisabled", func(t *testing.T) {
		g := newRT(t)
		key := g.license(t, planOpts{})
		g.s.As(t, g.org.APIKey, "DELETE", "/v1/mgmt/applications/"+g.appID, nil).Want(t, http.StatusOK)
		g.do(t, "POST", "/licenses/activate", g.activateBody(key, "fp")).WantError(t, http.StatusForbidden, "application_disabled")
	})
	t.Run("ErrInvalidApplication", func(t *testing.T) {
		f.s.Do(t, "POST", "/v1/runtime/licenses/activate", f.activateBody("x", "fp")).WantError(t, http.StatusUnauthorized, "invalid_application")
	})
}

// strings2 is a license key as a user might type it: lower case, no dashes.
func strings2(key string) string {
	out := []byte{}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '-' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

func TestRuntimeActivateWithUser(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	f.register(t, "alice@example.com")
	f.register(t, "bob@example.com")
	alice := f.login(t, "alice@example.com", "alice-pc")
	bob := f.login(t, "bob@example.com", "bob-pc")
	if got := f.wantValid(t, alice.AccessToken); len(got) != 0 {
		t.Fatalf("entitlements before any license = %v", got)
	}
	key := f.license(t, planOpts{ents: []string{"pro"}, maxDevices: 3})
	t.Run("OK", func(t *testing.T) {
		s := f.activate(t, key, "alice-pc", "Authorization", "Bearer "+alice.AccessToken)
		if l := f.lic(t, key); l.User == nil || l.User.Email != "alice@example.com" {
			t.Fatalf("license user = %+v", l.User)
		}
		f.wantValid(t, s.AccessToken)
		// The login session now carries the license's entitlements.
		if got := f.wantValid(t, alice.AccessToken); fmt.Sprint(got) != "[pro]" {
			t.Fatalf("login session entitlements = %v", got)
		}
		// Without a user token the holder of the key may still activate.
		f.activate(t, key, "alice-laptop")
	})
	t.Run("ErrLicenseOwnedByOtherUser", func(t *testing.T) {
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "bob-pc"), "Authorization", "Bearer "+bob.AccessToken).
			WantError(t, http.StatusForbidden, "license_owned_by_other_user")
	})
	t.Run("ErrInvalidToken", func(t *testing.T) {
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "x-pc"), "Authorization", "Bearer nope").WantError(t, http.StatusUnauthorized, "invalid_token")
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "x-pc"), "Authorization", "Basic abc").WantError(t, http.StatusUnauthorized, "invalid_token")
	})
}

func TestRuntimeAntiReplay(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 5})
	t.Run("ErrNonceReused", func(t *testing.T) {
		b := f.activateBody(key, "replay-1")
		f.do(t, "POST", "/licenses/activate", b).Want(t, http.StatusOK)
		f.do(t, "POST", "/licenses/activate", b).WantError(t, http.StatusConflict, "nonce_reused")
		// A nonce consumed by a refused request stays consumed.
		bad := f.activateBody("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "replay-2")
		f.do(t, "POST", "/licenses/activate", bad).WantError(t, http.StatusNotFound, "not_found")
		bad["license_key"] = key
		f.do(t, "POST", "/licenses/activate", bad).WantError(t, http.StatusConflict, "nonce_reused")
		// Nonces are per environment.
		f.register(t, "r@example.com")
		lb := f.loginBody("r@example.com", servertest.Password, "replay-3")
		f.do(t, "POST", "/auth/login", lb).Want(t, http.StatusOK)
		f.do(t, "POST", "/auth/login", lb).WantError(t, http.StatusConflict, "nonce_reused")
	})
	t.Run("ErrStaleTimestamp", func(t *testing.T) {
		for _, d := range []time.Duration{-301 * time.Second, 301 * time.Second} {
			b := f.activateBody(key, "stale")
			b["timestamp"] = f.s.Clock().Now().Add(d).Format(time.RFC3339)
			f.do(t, "POST", "/licenses/activate", b).WantError(t, http.StatusUnauthorized, "stale_timestamp")
		}
		// Any offset is accepted.
		b := f.activateBody(key, "offset")
		b["timestamp"] = f.s.Clock().Now().In(time.FixedZone("X", -3*3600)).Format(time.RFC3339Nano)
		f.do(t, "POST", "/licenses/activate", b).Want(t, http.StatusOK)
		lb := f.loginBody("nobody@example.com", "whatever-pass", "stale")
		lb["timestamp"] = f.s.Clock().Now().Add(-time.Hour).Format(time.RFC3339)
		f.do(t, "POST", "/auth/login", lb).WantError(t, http.StatusUnauthorized, "stale_timestamp")
	})
	t.Run("Audit", func(t *testing.T) {
		for event, min := range map[string]int{"runtime.replay_rejected": 4, "license.activated": 2} {
			var page struct {
				Total int `json:"total"`
			}
			f.mgmt(t, "GET", "/audit-logs?event="+event, nil).Want(t, http.StatusOK).JSON(t, &page)
			if page.Total < min {
				t.Fatalf("%s entries = %d, want at least %d", event, page.Total, min)
			}
		}
	})
}

func TestRuntimeNonceSurvivesRestart(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	f := attachRT(t, s)
	key := f.license(t, planOpts{maxDevices: 5})
	b := f.activateBody(key, "restart-1")
	f.do(t, "POST", "/licenses/activate", b).Want(t, http.StatusOK)
	cfg := s.Config
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := servertest.Start(t, cfg)
	f.s = s2
	f.do(t, "POST", "/licenses/activate", b).WantError(t, http.StatusConflict, "nonce_reused")
	f.activate(t, key, "restart-2")
}

func TestRuntimeDeviceReset(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 1, resets: 2})
	reset := func(fp string) *servertest.Resp {
		return f.do(t, "POST", "/devices/reset", map[string]any{"license_key": key, "device_fingerprint": fp})
	}
	t.Run("OK", func(t *testing.T) {
		s := f.activate(t, key, "reset-a")
		f.do(t, "POST", "/licenses/activate", f.activateBody(key, "reset-b")).WantError(t, http.StatusForbidden, "device_limit_reached")
		m := reset("reset-a").Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "success", "device_resets_remaining")
		if m["success"] != true || m["device_resets_remaining"] != float64(1) {
			t.Fatalf("reset = %v", m)
		}
		f.wantReason(t, s.AccessToken, "session_revoked")
		f.activate(t, key, "reset-b")
		f.wantAudit(t, "license.device_reset", 1)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		reset("reset-a").WantError(t, http.StatusNotFound, "not_found") // no longer bound
		reset("never-seen").WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "POST", "/devices/reset", map[string]any{"license_key": "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "device_fingerprint": "reset-b"}).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f.do(t, "POST", "/devices/reset", map[string]any{"license_key": key}).WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		m := reset("reset-b").Want(t, http.StatusOK).Map(t)
		if m["device_resets_remaining"] != float64(0) {
			t.Fatalf("reset = %v", m)
		}
		f.activate(t, key, "reset-c")
		reset("reset-c").WantError(t, http.StatusForbidden, "reset_limit_reached")
	})
}

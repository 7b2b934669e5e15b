package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

// challenged has a low account-wide bound of failed logins (5) so a test
// trips it from a handful of addresses.
func challenged(c *config.Config) {
	c.RateLimit.Enabled = true
	c.RateLimit.Window = time.Minute
	c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Management, c.RateLimit.Account = 1000, 1000, 1000, 1000
	c.RateLimit.LoginFailures, c.RateLimit.LoginFailuresGlobal = 3, 5
	c.Server.TrustedProxies = []string{"127.0.0.1", "::1"}
}

// wantChallengeRequired checks a 403 challenge_required whose Retry-After
// is wantRetry seconds, the time left until the account-wide bound resets.
func wantChallengeRequired(t *testing.T, r *servertest.Resp, wantRetry int) {
	t.Helper()
	r.WantError(t, http.StatusForbidden, "challenge_required")
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(wantRetry) {
		t.Fatalf("Retry-After = %q, want %d", got, wantRetry)
	}
}

// Issue 19 #5, docs/design.md §7: once an account's failed logins from all
// addresses reach ratelimit.login_failures_global, its logins need a solved
// ALTCHA challenge instead of being refused: without one 403
// challenge_required until the bound resets; with one the right password
// signs in and wrong ones still count.
func TestLoginChallengeAfterGlobalBound(t *testing.T) {
	t.Parallel()
	t.Run("OKDashboard", func(t *testing.T) {
		s := servertest.New(t, challenged)
		org := s.NewOrg(t)
		login := func(pw, ip, altcha string) *servertest.Resp {
			body := map[string]any{"email": org.OwnerEmail, "password": pw}
			if altcha != "" {
				body["altcha"] = altcha
			}
			return s.Do(t, "POST", "/v1/mgmt/auth/login", body, from(ip)...)
		}
		// A distributed guess: one failure from each of 5 addresses, two
		// of them in one IPv6 /64 (a pair each would allow 3).
		for i, ip := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3", v6(9, 1), v6(9, 2)} {
			login(fmt.Sprintf("wrong password %d", i), ip, "").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		s.Clock().Advance(10 * time.Minute)
		// The owner, from an address that never failed, is asked for a
		// challenge until the hour that began with the first failure ends.
		r := login(org.OwnerPassword, "198.51.100.7", "")
		wantChallengeRequired(t, r, 50*60)
		if m := r.Map(t)["error"].(map[string]any); m["retry_after_seconds"] != float64(50*60) {
			t.Fatalf("retry_after_seconds = %v", m["retry_after_seconds"])
		}
		login("wrong password 12345", "192.0.2.1", "").WantError(t, http.StatusForbidden, "challenge_required")

		// With a solved challenge a wrong password is judged (and counts),
		// the right one signs in; each challenge is accepted once.
		login("wrong password 12345", "198.51.100.7", solvedChallenge(t, s)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		p := solvedChallenge(t, s)
		login(org.OwnerPassword, "198.51.100.7", p).Want(t, http.StatusOK)
		wantFieldError(t, login(org.OwnerPassword, "198.51.100.7", p), "altcha")
		wantFieldError(t, login(org.OwnerPassword, "198.51.100.7", "bm90IGEgcGF5bG9hZA=="), "altcha")
		// A success leaves the bound tripped for the rest of its hour.
		wantChallengeRequired(t, login(org.OwnerPassword, "198.51.100.7", ""), 50*60)

		// Wrong passwords with solved challenges still count per pair: the
		// fourth from one address is refused before its challenge is spent.
		for range 3 {
			login("wrong password 12345", "203.0.113.5", solvedChallenge(t, s)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		p = solvedChallenge(t, s)
		login(org.OwnerPassword, "203.0.113.5", p).WantError(t, http.StatusTooManyRequests, "rate_limited")
		login(org.OwnerPassword, "198.51.100.7", p).Want(t, http.StatusOK)

		// Another account is not affected.
		other := s.NewOrg(t)
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": other.OwnerEmail, "password": other.OwnerPassword}, from("192.0.2.1")...).
			Want(t, http.StatusOK)

		s.Clock().Advance(50 * time.Minute)
		login(org.OwnerPassword, "198.51.100.7", "").Want(t, http.StatusOK)
	})

	t.Run("OKRuntime", func(t *testing.T) {
		f := newRT(t, challenged)
		f.register(t, "ann@example.com")
		login := func(pw, ip, altcha string, hdr ...string) *servertest.Resp {
			body := f.loginBody("ann@example.com", pw, "fp")
			if altcha != "" {
				body["altcha"] = altcha
			}
			if hdr == nil {
				hdr = []string{"x-api-key", f.pub}
			}
			return f.s.Do(t, "POST", "/v1/runtime/auth/login", body, append(hdr, from(ip)...)...)
		}
		// The field is accepted (and not needed) before the bound trips.
		login(servertest.Password, "198.51.100.7", "unused").Want(t, http.StatusOK)
		for i := range 5 {
			login("wrong password 12345", v6(i+1, 1), "").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		wantChallengeRequired(t, login(servertest.Password, "198.51.100.7", ""), 60*60)
		// However the application is named, it is the same account.
		wantChallengeRequired(t, login(servertest.Password, "198.51.100.7", "", "x-application-id", f.appID, "x-environment", "production"), 60*60)

		login("wrong password 12345", "198.51.100.7", solvedChallenge(t, f.s)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		p := solvedChallenge(t, f.s)
		r := login(servertest.Password, "198.51.100.7", p).Want(t, http.StatusOK)
		servertest.WantKeys(t, r.Map(t), "access_token", "refresh_token", "access_expires_at", "refresh_expires_at")
		login(servertest.Password, "198.51.100.7", p).WantError(t, http.StatusBadRequest, "validation_failed")
		wantChallengeRequired(t, login(servertest.Password, "198.51.100.7", ""), 60*60)

		// The development environment's end-user of the same address is
		// another account.
		f.s.Do(t, "POST", "/v1/runtime/auth/register", map[string]any{"email": "ann@example.com", "password": servertest.Password},
			"x-api-key", f.devPub).Want(t, http.StatusCreated)
		login(servertest.Password, "198.51.100.7", "", "x-api-key", f.devPub).Want(t, http.StatusOK)

		f.s.Clock().Advance(time.Hour)
		login(servertest.Password, "198.51.100.7", "").Want(t, http.StatusOK)
	})
}

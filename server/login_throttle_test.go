package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

func throttled(global int) func(*config.Config) {
	return func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Window = time.Minute
		c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Management, c.RateLimit.Account = 10000, 10000, 10000, 10000
		c.RateLimit.LoginFailures = 3
		c.RateLimit.LoginFailuresGlobal = global
		c.Server.TrustedProxies = []string{"127.0.0.1/32"}
	}
}

// TestRuntimeLoginThrottleSpelling: the runtime account is (application,
// environment, end-user) however the headers name the application, so
// switching between x-api-key, x-application-id and the UUID's letter case
// buys no extra guesses.
func TestRuntimeLoginThrottleSpelling(t *testing.T) {
	f := newRT(t, throttled(100))
	f.register(t, "eve@example.com")
	spellings := [][]string{
		{"x-api-key", f.pub},
		{"x-api-key", "", "x-application-id", f.appID},
		{"x-api-key", "", "x-application-id", strings.ToUpper(f.appID), "x-environment", "production"},
		{"x-api-key", "", "x-application-id", " " + strings.ToUpper(f.appID[:8]) + f.appID[8:]},
	}
	login := func(sp []string, pw string) *servertest.Resp {
		return f.s.Do(t, "POST", "/v1/runtime/auth/login", f.loginBody("EVE@example.com", pw, "eve-pc"), sp...)
	}
	for _, sp := range spellings[:3] {
		login(sp, "not the password").WantError(t, http.StatusUnauthorized, "invalid_credentials")
	}
	for _, sp := range spellings {
		login(sp, servertest.Password).WantError(t, http.StatusTooManyRequests, "rate_limited")
	}
}

// TestLoginThrottlePerAddress (design §7): failures from one address lock
// only that (account, address) pair; the owner logs in from elsewhere. A
// higher per-account bound across addresses stops a distributed attack.
func TestLoginThrottlePerAddress(t *testing.T) {
	from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
	const attacker, owner = "203.0.113.66", "198.51.100.7"

	t.Run("Dashboard", func(t *testing.T) {
		s := servertest.New(t, throttled(5))
		org := s.NewOrg(t)
		login := func(pw, ip string) *servertest.Resp {
			return s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": pw}, from(ip)...)
		}
		for range 3 {
			login("not the password at all", attacker).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		login(org.OwnerPassword, attacker).WantError(t, http.StatusTooManyRequests, "rate_limited")
		login(org.OwnerPassword, owner).Want(t, http.StatusOK)
		// Two more failures from other addresses reach the account-wide
		// bound of 5: now every address waits, the owner's too.
		login("not the password at all", "203.0.113.67").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		login("not the password at all", "203.0.113.68").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		login(org.OwnerPassword, owner).WantError(t, http.StatusTooManyRequests, "rate_limited")
		s.Clock().Advance(time.Hour)
		login(org.OwnerPassword, owner).Want(t, http.StatusOK)
	})

	t.Run("Runtime", func(t *testing.T) {
		f := newRT(t, throttled(5))
		f.register(t, "eve@example.com")
		login := func(pw, ip string) *servertest.Resp {
			return f.do(t, "POST", "/auth/login", f.loginBody("eve@example.com", pw, "eve-pc"), from(ip)...)
		}
		for range 3 {
			login("not the password", attacker).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		login(servertest.Password, attacker).WantError(t, http.StatusTooManyRequests, "rate_limited")
		login(servertest.Password, owner).Want(t, http.StatusOK)
		login("not the password", "203.0.113.67").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		login("not the password", "203.0.113.68").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		login(servertest.Password, owner).WantError(t, http.StatusTooManyRequests, "rate_limited")
		f.s.Clock().Advance(time.Hour)
		login(servertest.Password, owner).Want(t, http.StatusOK)
	})
}

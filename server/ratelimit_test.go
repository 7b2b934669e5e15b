package server_test

import (
	"net/http"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

func TestRateLimits(t *testing.T) {
	t.Parallel()
	f := newRT(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Window = time.Minute
		c.RateLimit.Runtime = 5
		c.RateLimit.RuntimeAuth = 2
		c.RateLimit.Management = 4
	})
	t.Run("ErrRateLimitedRuntime", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			r := f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
			if r.Header.Get("RateLimit-Limit") != "5" || r.Header.Get("RateLimit-Remaining") == "" || r.Header.Get("RateLimit-Reset") == "" {
				t.Fatalf("headers = %v", r.Header)
			}
		}
		r := f.do(t, "POST", "/applications/init", nil)
		r.WantError(t, http.StatusTooManyRequests, "rate_limited")
		if r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("headers = %v", r.Header)
		}
		// A new window lets requests through again.
		f.s.Clock().Advance(time.Minute)
		f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
	})
	t.Run("ErrRateLimitedAuth", func(t *testing.T) {
		f.s.Clock().Advance(time.Minute)
		for i := 0; i < 2; i++ {
			f.do(t, "POST", "/licenses/activate", f.activateBody("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "fp")).WantError(t, http.StatusNotFound, "not_found")
		}
		f.do(t, "POST", "/licenses/activate", f.activateBody("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "fp")).WantError(t, http.StatusTooManyRequests, "rate_limited")
	})
	t.Run("ErrRateLimitedManagement", func(t *testing.T) {
		f.s.Clock().Advance(time.Minute)
		for i := 0; i < 4; i++ {
			f.s.As(t, f.org.APIKey, "GET", "/v1/mgmt/applications", nil).Want(t, http.StatusOK)
		}
		r := f.s.As(t, f.org.APIKey, "GET", "/v1/mgmt/applications", nil)
		r.WantError(t, http.StatusTooManyRequests, "rate_limited")
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("headers = %v", r.Header)
		}
	})
	t.Run("OffWhenDisabled", func(t *testing.T) {
		g := newRT(t)
		for i := 0; i < 20; i++ {
			r := g.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK)
			if r.Header.Get("RateLimit-Limit") != "" {
				t.Fatal("rate limit headers with limits off")
			}
		}
	})
}

func TestRuntimeLoginThrottle(t *testing.T) {
	t.Parallel()
	f := newRT(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Window = time.Minute
		c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Management = 1000, 1000, 1000
		c.RateLimit.LoginFailures = 3
	})
	f.register(t, "eve@example.com")
	f.register(t, "frank@example.com")
	for i := 0; i < 3; i++ {
		f.do(t, "POST", "/auth/login", f.loginBody("eve@example.com", "not the password", "eve-pc")).WantError(t, http.StatusUnauthorized, "invalid_credentials")
	}
	r := f.do(t, "POST", "/auth/login", f.loginBody("eve@example.com", servertest.Password, "eve-pc"))
	r.WantError(t, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("headers = %v", r.Header)
	}
	f.login(t, "frank@example.com", "frank-pc") // another account is not affected
	f.s.Clock().Advance(time.Minute)
	f.login(t, "eve@example.com", "eve-pc")
}

package server_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

// v6 is the address n of the /64 net 2001:db8:0:<net>::/64.
func v6(net, n int) string { return fmt.Sprintf("2001:db8:0:%x::%x", net, n) }

// Issue 19 #5, docs/design.md §7: every per-address limit keys an IPv6 client by
// its /64, so the addresses of one host's /64 share one bucket; IPv4
// clients keep one bucket per address.
func TestPerAddressLimitsIPv6(t *testing.T) {
	t.Parallel()
	limits := func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Window = time.Minute
		c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Management, c.RateLimit.Account = 5, 2, 1000, 3
		c.RateLimit.LoginFailures, c.RateLimit.LoginFailuresGlobal = 3, 0
		c.Server.TrustedProxies = []string{"127.0.0.1", "::1"}
	}

	t.Run("ErrRateLimitedRuntime", func(t *testing.T) {
		f := newRT(t, limits)
		init := func(ip string) *servertest.Resp { return f.do(t, "POST", "/applications/init", nil, from(ip)...) }
		for i := range 5 {
			init(v6(1, i+1)).Want(t, http.StatusOK)
		}
		init(v6(1, 0xbeef)).WantError(t, http.StatusTooManyRequests, "rate_limited")
		init(v6(2, 1)).Want(t, http.StatusOK) // the next /64 is another client
		for range 5 {
			init("198.51.100.1").Want(t, http.StatusOK)
		}
		init("198.51.100.1").WantError(t, http.StatusTooManyRequests, "rate_limited")
		init("198.51.100.2").Want(t, http.StatusOK) // IPv4: one bucket per address, as before
	})

	t.Run("ErrRateLimitedRuntimeAuth", func(t *testing.T) {
		f := newRT(t, limits)
		activate := func(ip string) *servertest.Resp {
			return f.do(t, "POST", "/licenses/activate", f.activateBody("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "fp"), from(ip)...)
		}
		activate(v6(1, 1)).WantError(t, http.StatusNotFound, "not_found")
		activate(v6(1, 2)).WantError(t, http.StatusNotFound, "not_found")
		activate(v6(1, 3)).WantError(t, http.StatusTooManyRequests, "rate_limited")
		activate(v6(2, 3)).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("ErrRateLimitedAccount", func(t *testing.T) {
		s := servertest.New(t, limits)
		forgot := func(ip string) *servertest.Resp {
			return s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": newAddress("v6")}, from(ip)...)
		}
		for i := range 3 {
			forgot(v6(1, i+1)).Want(t, http.StatusOK)
		}
		forgot(v6(1, 4)).WantError(t, http.StatusTooManyRequests, "rate_limited")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(newAddress("v6")), from(v6(1, 5))...).WantError(t, http.StatusTooManyRequests, "rate_limited")
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": newAddress("v6"), "password": "not the password at all"}, from(v6(1, 6))...).
			WantError(t, http.StatusTooManyRequests, "rate_limited")
		// The account pages share the account calls' limit.
		if r := s.Do(t, "GET", "/account/forgot-password", nil, from(v6(1, 7))...); r.Status != http.StatusTooManyRequests {
			t.Fatalf("page status = %d, want 429", r.Status)
		}
		forgot(v6(2, 1)).Want(t, http.StatusOK)
	})

	t.Run("ErrRateLimitedLoginPair", func(t *testing.T) {
		cfg := func(c *config.Config) {
			limits(c)
			c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Account = 1000, 1000, 1000
		}
		s := servertest.New(t, cfg)
		org := s.NewOrg(t)
		login := func(pw, ip string) *servertest.Resp {
			return s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": pw}, from(ip)...)
		}
		for i := range 3 {
			login("wrong password 12345", v6(1, i+1)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		wantRateLimited(t, login(org.OwnerPassword, v6(1, 0xcafe)))
		login(org.OwnerPassword, v6(2, 1)).Want(t, http.StatusOK)
		// IPv4 unchanged: a neighbour address is another pair.
		for range 3 {
			login("wrong password 12345", "203.0.113.9").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		wantRateLimited(t, login(org.OwnerPassword, "203.0.113.9"))
		login(org.OwnerPassword, "203.0.113.10").Want(t, http.StatusOK)

		f := attachRT(t, s)
		f.register(t, "v6@example.com")
		rtLogin := func(pw, ip string) *servertest.Resp {
			return f.do(t, "POST", "/auth/login", f.loginBody("v6@example.com", pw, "fp"), from(ip)...)
		}
		for i := range 3 {
			rtLogin("wrong password 12345", v6(3, i+1)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		rtLogin(servertest.Password, v6(3, 0xcafe)).WantError(t, http.StatusTooManyRequests, "rate_limited")
		rtLogin(servertest.Password, v6(4, 1)).Want(t, http.StatusOK)
	})
}

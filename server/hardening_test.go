package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
	"licensectl/store"
)

// Issue 9 #1: made-up methods and paths must not grow the metrics page.
func TestMetricsLabelsBounded(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	for i := range 50 {
		req, err := http.NewRequest(fmt.Sprintf("BREW%d", i), s.URL+fmt.Sprintf("/v1/mgmt/nothing-%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	series := 0
	for name := range scrape(t, s, s.URL+"/metrics") {
		if strings.HasPrefix(name, "licensectl_http_requests_total{") {
			series++
			if strings.Contains(name, "BREW") || strings.Contains(name, "nothing-") {
				t.Fatalf("a made-up method or path became a label: %s", name)
			}
		}
	}
	if series > 3 {
		t.Fatalf("%d request series after 50 made-up requests", series)
	}
}

// Issue 9 #2: dot segments are never redirected to the parent resource.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ent := f.do(t, "POST", "/entitlements", map[string]any{"key": "pro", "name": "Pro"}).Want(t, http.StatusCreated).Map(t)
	client := *f.s.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, path := range []string{
		"/entitlements/..", "/entitlements/%2e%2e", "/entitlements/%2E%2E", "/entitlements/.", "/./entitlements",
		"/entitlements/../../" + f.app, "/entitlements/%2e%2e?permanent=true",
	} {
		for _, method := range []string{"GET", "DELETE"} {
			req, _ := http.NewRequest(method, f.s.URL+"/v1/mgmt/applications/"+f.app+path, nil)
			req.Header.Set("Authorization", "Bearer "+f.key)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("%s %s: %d (Location %q), want 404", method, path, res.StatusCode, res.Header.Get("Location"))
			}
		}
	}
	// Nothing was deleted.
	f.do(t, "GET", "", nil).Want(t, http.StatusOK)
	if list := f.do(t, "GET", "/entitlements", nil).List(t); len(list) != 1 || list[0]["id"] != ent["entitlement_id"] {
		t.Fatalf("entitlements = %v", list)
	}
}

// throttled has logins limited as in production, with the client address
// taken from X-Forwarded-For so a test can speak from several addresses.
func throttled(c *config.Config) {
	c.RateLimit.Enabled = true
	c.RateLimit.LoginFailures = 10
	c.RateLimit.LoginFailuresGlobal = 25
	c.Server.TrustedProxies = []string{"127.0.0.1", "::1"}
}

func from(ip string) []string { return []string{"X-Forwarded-For", ip} }

// Issue 9 #3: the runtime lockout counts one account however the request
// names the application.
func TestRuntimeLoginThrottleIgnoresSpelling(t *testing.T) {
	t.Parallel()
	f := newRT(t, throttled)
	f.register(t, "eve@example.com")
	spellings := [][]string{
		{"x-api-key", f.pub},
		{"X-API-KEY", f.pub},
		{"x-application-id", f.appID, "x-environment", "production"},
		{"x-application-id", strings.ToUpper(f.appID), "x-environment", "production"},
		{"X-Application-Id", f.appID, "X-Environment", "production"},
	}
	for i := range 10 {
		hdr := spellings[i%len(spellings)]
		f.s.Do(t, "POST", "/v1/runtime/auth/login", f.loginBody("eve@example.com", "wrong password 12345", "fp"), hdr...).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
	}
	for _, hdr := range spellings {
		f.s.Do(t, "POST", "/v1/runtime/auth/login", f.loginBody("eve@example.com", "wrong password 12345", "fp"), hdr...).
			WantError(t, http.StatusTooManyRequests, "rate_limited")
	}
}

// Issue 9 #4: guessing from one address never locks the owner out from
// another; only the higher per-account bound, reached from many addresses,
// refuses everyone.
func TestLoginThrottlePerAddress(t *testing.T) {
	t.Parallel()
	t.Run("OKDashboard", func(t *testing.T) {
		s := servertest.New(t, throttled)
		org := s.NewOrg(t)
		login := func(pw, ip string) *servertest.Resp {
			return s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": pw}, from(ip)...)
		}
		for range 10 {
			login("wrong password 12345", "203.0.113.9").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		login(servertest.Password, "203.0.113.9").WantError(t, http.StatusTooManyRequests, "rate_limited")
		login(servertest.Password, "198.51.100.7").Want(t, http.StatusOK)
		// A success resets that pair only.
		login("wrong password 12345", "198.51.100.7").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		login(servertest.Password, "203.0.113.9").WantError(t, http.StatusTooManyRequests, "rate_limited")
		// Many addresses reach the per-account bound (25): then every login
		// needs a solved challenge (TestLoginChallengeAfterGlobalBound).
		for i := range 14 {
			login("wrong password 12345", fmt.Sprintf("192.0.2.%d", i+1)).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		login(servertest.Password, "198.51.100.8").WantError(t, http.StatusForbidden, "challenge_required")
	})
	t.Run("OKRuntime", func(t *testing.T) {
		f := newRT(t, throttled)
		f.register(t, "ann@example.com")
		login := func(pw, ip string) *servertest.Resp {
			return f.do(t, "POST", "/auth/login", f.loginBody("ann@example.com", pw, "fp"), from(ip)...)
		}
		for range 10 {
			login("wrong password 12345", "203.0.113.9").WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		login(servertest.Password, "203.0.113.9").WantError(t, http.StatusTooManyRequests, "rate_limited")
		login(servertest.Password, "198.51.100.7").Want(t, http.StatusOK)
	})
}

// Issue 9 #9: the role routes check an application secret's environment
// and count against the per-credential limit like every management call.
func TestUserRolesWithSecret(t *testing.T) {
	t.Parallel()
	f := newRT(t, func(c *config.Config) { c.RateLimit.Enabled = true; c.RateLimit.Management = 8 })
	secret := func(env string) string {
		var envID string
		for _, e := range f.mgmt(t, "GET", "/environments", nil).List(t) {
			if e["name"] == env {
				envID = e["id"].(string)
			}
		}
		var sec struct {
			Plaintext string `json:"plaintext"`
		}
		f.mgmt(t, "POST", "/secrets", map[string]any{"environment_id": envID}).Want(t, http.StatusCreated).JSON(t, &sec)
		return sec.Plaintext
	}
	prod, dev := secret("production"), secret("development")
	devUser := f.s.Do(t, "POST", "/v1/runtime/auth/register", map[string]any{"email": "dev@example.com", "password": servertest.Password},
		"x-api-key", f.devPub).Want(t, http.StatusCreated).Map(t)["user_id"].(string)
	path := "/v1/mgmt/auth/users/" + devUser + "/roles"
	f.s.As(t, prod, "POST", path, map[string]any{"role_id": "beta"}).WantError(t, http.StatusNotFound, "not_found")
	f.s.As(t, dev, "POST", path, map[string]any{"role_id": "beta"}).Want(t, http.StatusOK)
	f.s.As(t, dev, "DELETE", path+"/beta", nil).Want(t, http.StatusOK)
	// The secret's calls count against the per-credential limit (8 here).
	var r *servertest.Resp
	for range 9 {
		if r = f.s.As(t, dev, "POST", path, map[string]any{"role_id": "beta"}); r.Status != http.StatusOK {
			break
		}
		if r.Header.Get("RateLimit-Limit") != "8" {
			t.Fatalf("RateLimit-Limit = %q", r.Header.Get("RateLimit-Limit"))
		}
	}
	r.WantError(t, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// docs/design.md §4: an application secret acts in its own environment. It
// may neither mint nor revoke a secret of the other one (a development secret
// would otherwise escalate to production), nor change or delete the
// application, which spans both; nor read billing, outside its application.
func TestAppSecretOwnEnvironment(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	envIDs := map[string]string{}
	for _, e := range f.mgmt(t, "GET", "/environments", nil).List(t) {
		envIDs[e["name"].(string)] = e["id"].(string)
	}
	secret := func(tok, env string) (id, plain string) {
		var sec struct {
			ID        string `json:"secret_id"`
			Plaintext string `json:"plaintext"`
		}
		f.s.As(t, tok, "POST", "/v1/mgmt/applications/"+f.appID+"/secrets", map[string]any{"environment_id": envIDs[env]}).Want(t, http.StatusCreated).JSON(t, &sec)
		return sec.ID, sec.Plaintext
	}
	prodID, _ := secret(f.org.APIKey, "production")
	_, dev := secret(f.org.APIKey, "development")
	app := "/v1/mgmt/applications/" + f.appID

	cases := []struct {
		name, method, path string
		body               any
	}{
		{"ErrMintOtherEnvironment", "POST", app + "/secrets", map[string]any{"environment_id": envIDs["production"]}},
		{"ErrRevokeOtherEnvironment", "DELETE", app + "/secrets/" + prodID, nil},
		{"ErrRenameApplication", "PATCH", app, map[string]any{"name": "Renamed"}},
		{"ErrDisableApplication", "PATCH", app, map[string]any{"status": "disabled"}},
		{"ErrArchiveApplication", "DELETE", app, nil},
		{"ErrDeleteApplication", "DELETE", app + "?permanent=true", nil},
		{"ErrBillingPlans", "GET", "/v1/mgmt/billing/plans", nil},
		{"ErrSubscription", "GET", "/v1/mgmt/billing/subscription", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.s.As(t, dev, c.method, c.path, c.body).WantError(t, http.StatusForbidden, "forbidden")
		})
	}
	t.Run("OKNothingChanged", func(t *testing.T) {
		d := f.mgmt(t, "GET", "", nil).Want(t, http.StatusOK).Map(t)
		if d["name"] != "Runtime App" || d["status"] != "active" {
			t.Fatalf("application after refused calls = %v", d)
		}
		live := 0
		for _, s := range f.mgmt(t, "GET", "/secrets", nil).List(t) {
			if s["revoked_at"] == nil {
				live++
			}
			if s["id"] == prodID && s["revoked_at"] != nil {
				t.Fatal("the production secret was revoked")
			}
		}
		if live != 2 {
			t.Fatalf("%d live secrets, want 2", live)
		}
	})
	t.Run("OKOwnEnvironment", func(t *testing.T) {
		id, _ := secret(dev, "development")
		f.s.As(t, dev, "DELETE", app+"/secrets/"+id, nil).Want(t, http.StatusOK)
		f.s.As(t, dev, "POST", app+"/secrets", map[string]any{"environment_id": store.NewID()}).WantError(t, http.StatusBadRequest, "validation_failed")
		f.s.As(t, dev, "GET", app, nil).Want(t, http.StatusOK)
	})
}

// Issue 9 #14, docs/design.md §5: the HTTP side of the refresh grace (the store's
// rules, parallel refreshes among them, are storetest's RefreshParallel and
// Refresh): the configured grace reaches the store, a token rotated a
// moment ago is 409 refresh_token_rotated, reuse is 401 refresh_token_reused.
func TestRefreshGrace(t *testing.T) {
	t.Parallel()
	refresh := func(f *rtFix, tok string) *servertest.Resp {
		return f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tok})
	}
	t.Run("ErrAfterGrace", func(t *testing.T) {
		f := newRT(t)
		s := f.activate(t, f.license(t, planOpts{}), "pc")
		var b session
		refresh(f, s.RefreshToken).Want(t, http.StatusOK).JSON(t, &b)
		f.s.Clock().Advance(9 * time.Second)
		refresh(f, s.RefreshToken).WantError(t, http.StatusConflict, "refresh_token_rotated")
		f.s.Clock().Advance(time.Second)
		refresh(f, s.RefreshToken).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
		f.wantReason(t, b.AccessToken, "session_revoked")
	})
	t.Run("ErrGraceOff", func(t *testing.T) {
		f := newRT(t, func(c *config.Config) { c.Runtime.RefreshReuseGrace = 0 })
		s := f.activate(t, f.license(t, planOpts{}), "pc")
		refresh(f, s.RefreshToken).Want(t, http.StatusOK)
		refresh(f, s.RefreshToken).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
	})
}

// Issue 9 #6: resend-verification and forgot-password answer the same bytes
// for any address, send at most 3 mails per address per 10 minutes, and
// leave the account lookup and the mail to the queue (the request does the
// same work for every address; BenchmarkMailCalls measures it).
func TestMailCallsSameAndCapped(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, func(c *config.Config) { c.RateLimit.Enabled = true })
	registered := newAddress("cap")
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(registered))) // mail 1 of 3
	unknown := newAddress("nobody")
	for _, path := range []string{"/v1/mgmt/auth/resend-verification", "/v1/mgmt/auth/forgot-password"} {
		var first []byte
		for i := range 4 {
			for _, addr := range []string{registered, unknown} {
				r := s.Do(t, "POST", path, map[string]any{"email": addr}).Want(t, http.StatusOK)
				if first == nil {
					first = r.Body
				} else if string(r.Body) != string(first) {
					t.Fatalf("%s #%d for %s answered %s, first answer %s", path, i, addr, r.Body, first)
				}
			}
		}
	}
	if n := len(s.MailsTo(t, registered)); n != 3 {
		t.Fatalf("%d mails to one address after 9 asks, want 3", n)
	}
	if n := len(s.MailsTo(t, unknown)); n != 0 {
		t.Fatalf("%d mails to an unknown address", n)
	}
	// Another address is not held back by the first one's share.
	other := newAddress("cap")
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(other)))
	s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": other}).Want(t, http.StatusOK)
	if n := len(s.MailsTo(t, other)); n != 2 {
		t.Fatalf("%d mails to a fresh address, want 2", n)
	}
}

// BenchmarkMailCalls compares forgot-password for a registered and an
// unknown address: the request does the same work for both.
func BenchmarkMailCalls(b *testing.B) {
	s := servertest.New(b)
	registered := newAddress("bench")
	s.Do(b, "POST", "/v1/mgmt/auth/signup", signupBody(registered)).Want(b, http.StatusOK)
	for _, c := range []struct{ name, addr string }{{"registered", registered}, {"unknown", newAddress("nobody")}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s.Do(b, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": c.addr}).Want(b, http.StatusOK)
			}
			s.WaitMail()
		})
	}
}

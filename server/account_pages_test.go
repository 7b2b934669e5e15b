package server_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/servertest"
)

// pageGet fetches an account page with a plain client, as a mail client or
// scanner would.
func pageGet(t *testing.T, s *servertest.Server, path string) *servertest.Resp {
	t.Helper()
	return s.Do(t, "GET", path, nil)
}

// pagePost submits a page's form, urlencoded, as a browser without script.
func pagePost(t *testing.T, s *servertest.Server, path string, form url.Values) *servertest.Resp {
	t.Helper()
	return s.Do(t, "POST", path, form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
}

// wantPage fails unless r is an HTML page with status and the account
// pages' headers, whose text holds every want.
func wantPage(t *testing.T, r *servertest.Resp, status int, want ...string) {
	t.Helper()
	r.Want(t, status)
	for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	body := string(r.Body)
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("page lacks %q:\n%s", w, body)
		}
	}
	// Nothing from elsewhere, no inline script or style.
	for _, bad := range []string{"http://", "https://", "<script>", "style=", "onclick"} {
		if strings.Contains(body, bad) {
			t.Fatalf("page holds %q:\n%s", bad, body)
		}
	}
}

// pageServer is a server whose debug log a test reads.
func pageServer(t *testing.T, mods ...func(*config.Config)) (*servertest.Server, *syncBuffer) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	cfg.Signup.Challenge = "off"
	for _, m := range mods {
		m(&cfg)
	}
	logs := &syncBuffer{}
	return servertest.Start(t, cfg, server.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))), logs
}

func TestVerifyEmailPage(t *testing.T) {
	t.Parallel()
	s, logs := pageServer(t)
	email := newAddress("page")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
	body := s.MailsTo(t, email)[0].Body
	if !strings.Contains(body, s.URL+"/account/verify-email?token=") {
		t.Fatalf("the mail does not link the account page of %s:\n%s", s.URL, body)
	}
	tok := servertest.LinkToken(t, body, "/verify-email")
	path := "/account/verify-email?token=" + url.QueryEscape(tok)

	t.Run("OK", func(t *testing.T) {
		// Scanners open the link first: GET shows a form and spends nothing.
		for range 2 {
			wantPage(t, pageGet(t, s, path), http.StatusOK, `<form method="post" action="/account/verify-email">`, `name="token" value="`+tok+`"`, "Verify my e-mail address")
		}
		if got := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]string{"email": email, "password": servertest.Password}).Want(t, http.StatusOK).Map(t); got["email_verified"] != false {
			t.Fatalf("a GET verified the address: %v", got)
		}
		wantPage(t, pagePost(t, s, "/account/verify-email", url.Values{"token": {tok}}), http.StatusOK, "Done: your e-mail address is verified.")
		if got := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]string{"email": email, "password": servertest.Password}).Want(t, http.StatusOK).Map(t); got["email_verified"] != true {
			t.Fatalf("after the form, login = %v", got)
		}
	})
	t.Run("ErrAlreadyUsed", func(t *testing.T) {
		wantPage(t, pageGet(t, s, path), http.StatusGone, "already used")
		wantPage(t, pagePost(t, s, "/account/verify-email", url.Values{"token": {tok}}), http.StatusGone, "already used")
	})
	t.Run("ErrExpired", func(t *testing.T) {
		other := newAddress("late")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(other)).Want(t, http.StatusOK)
		late := verifyToken(t, s, other)
		s.Clock().Advance(25 * time.Hour)
		wantPage(t, pageGet(t, s, "/account/verify-email?token="+url.QueryEscape(late)), http.StatusGone, "expired")
		wantPage(t, pagePost(t, s, "/account/verify-email", url.Values{"token": {late}}), http.StatusGone, "expired")
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		wantPage(t, pageGet(t, s, "/account/verify-email?token=nonsense"), http.StatusNotFound, "not valid")
		wantPage(t, pageGet(t, s, "/account/verify-email"), http.StatusBadRequest, "incomplete")
	})
	t.Run("OKTokenNotLogged", func(t *testing.T) {
		if logs.contains(tok) {
			t.Fatal("the token is in the log")
		}
		if !logs.contains("/account/verify-email") {
			t.Fatal("the page requests were not logged at all")
		}
	})
}

func TestResetPasswordPage(t *testing.T) {
	t.Parallel()
	s, logs := pageServer(t)
	org := s.NewOrg(t)
	s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
	body := s.MailsTo(t, org.OwnerEmail)[0].Body
	if !strings.Contains(body, s.URL+"/account/reset-password?token=") {
		t.Fatalf("the mail does not link the account page:\n%s", body)
	}
	tok := servertest.LinkToken(t, body, "/reset-password")
	const newPassword = "quiet lanterns drift over seven harbors"

	t.Run("OK", func(t *testing.T) {
		wantPage(t, pageGet(t, s, "/account/reset-password?token="+url.QueryEscape(tok)), http.StatusOK,
			`action="/account/reset-password"`, `name="new_password"`, `<script src="/account/static/reset.js"></script>`)
		// The policy's refusal shows the form again and spends nothing.
		wantPage(t, pagePost(t, s, "/account/reset-password", url.Values{"token": {tok}, "new_password": {"password123"}, "confirm_password": {"password123"}}),
			http.StatusBadRequest, "The new password is one of the most commonly used passwords", `name="new_password"`)
		wantPage(t, pagePost(t, s, "/account/reset-password", url.Values{"token": {tok}, "new_password": {"short"}, "confirm_password": {"short"}}),
			http.StatusBadRequest, "at least 10 characters")
		wantPage(t, pagePost(t, s, "/account/reset-password", url.Values{"token": {tok}, "new_password": {newPassword}, "confirm_password": {newPassword + "x"}}),
			http.StatusBadRequest, "The two passwords differ")
		wantPage(t, pagePost(t, s, "/account/reset-password", url.Values{"token": {tok}, "new_password": {newPassword}, "confirm_password": {newPassword}}),
			http.StatusOK, "Done: your password was changed")
		s.Login(t, org.OwnerEmail, newPassword)
	})
	t.Run("ErrAlreadyUsed", func(t *testing.T) {
		wantPage(t, pageGet(t, s, "/account/reset-password?token="+url.QueryEscape(tok)), http.StatusGone, "already used")
		wantPage(t, pagePost(t, s, "/account/reset-password", url.Values{"token": {tok}, "new_password": {newPassword}, "confirm_password": {newPassword}}), http.StatusGone, "already used")
	})
	t.Run("ErrExpired", func(t *testing.T) {
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		mails := s.MailsTo(t, org.OwnerEmail)
		late := servertest.LinkToken(t, mails[len(mails)-1].Body, "/reset-password")
		s.Clock().Advance(2 * time.Hour)
		wantPage(t, pageGet(t, s, "/account/reset-password?token="+url.QueryEscape(late)), http.StatusGone, "expired")
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		wantPage(t, pageGet(t, s, "/account/reset-password?token=nonsense"), http.StatusNotFound, "not valid")
	})
	t.Run("OKTokenNotLogged", func(t *testing.T) {
		if logs.contains(tok) {
			t.Fatal("the token is in the log")
		}
	})
}

func TestForgotPasswordPage(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t)
	org := s.NewOrg(t)
	t.Run("OK", func(t *testing.T) {
		wantPage(t, pageGet(t, s, "/account/forgot-password"), http.StatusOK, `action="/account/forgot-password"`)
		wantPage(t, pagePost(t, s, "/account/forgot-password", url.Values{"email": {org.OwnerEmail}}), http.StatusOK, "If this address has an account")
		wantPage(t, pagePost(t, s, "/account/forgot-password", url.Values{"email": {"nobody@example.com"}}), http.StatusOK, "If this address has an account")
		if n := len(s.MailsTo(t, org.OwnerEmail)); n != 1 {
			t.Fatalf("%d mails, want 1", n)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantPage(t, pagePost(t, s, "/account/forgot-password", url.Values{"email": {"not an address"}}), http.StatusBadRequest, "not a valid e-mail address")
	})
}

func TestPartnerPage(t *testing.T) {
	t.Parallel()
	t.Run("OK", func(t *testing.T) {
		s := partnerServer(t, newProvider(t))
		wantPage(t, pageGet(t, s, "/account/partner/callback?code=c&state=s"), http.StatusOK, `<script src="/account/static/partner.js"></script>`, "<noscript>", `id="profile"`)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		s, _ := pageServer(t)
		wantPage(t, pageGet(t, s, "/account/partner/callback"), http.StatusNotFound, "not configured")
	})
}

func TestAccountPageAssets(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t)
	for _, c := range []struct{ path, ctype string }{
		{"/account/static/account.css", "text/css"},
		{"/account/static/reset.js", "text/javascript"},
		{"/account/static/partner.js", "text/javascript"},
	} {
		t.Run("OK", func(t *testing.T) {
			r := pageGet(t, s, c.path).Want(t, http.StatusOK)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), c.ctype) || r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("%s: headers %v", c.path, r.Header)
			}
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		pageGet(t, s, "/account/static/nothing.js").Want(t, http.StatusNotFound)
	})
}

func TestMailLinkBase(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t, func(c *config.Config) {
		c.Mail.LinkBase = "https://dash.example.com/auth/"
		c.Server.PublicURL = "https://licenses.example.com"
	})
	email := newAddress("base")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
	t.Run("OK", func(t *testing.T) {
		body := s.MailsTo(t, email)[0].Body
		if !strings.Contains(body, "https://dash.example.com/auth/verify-email?token=") {
			t.Fatalf("link not under mail.link_base:\n%s", body)
		}
		// The token still works through the API.
		tok := servertest.LinkToken(t, body, "/verify-email")
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK)
	})
}

// TestAccountIndexPage: /account/ is a page for people, not the API's JSON
// 404, and every next step a page offers exists on this server.
func TestAccountIndexPage(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t)
	for _, path := range []string{"/account/", "/account"} {
		r := pageGet(t, s, path)
		wantPage(t, r, http.StatusOK, "Your account", "no sign-in page of its own", "POST /v1/mgmt/auth/login",
			`href="/account/forgot-password"`, `href="/account/resend-verification"`)
		if strings.Contains(string(r.Body), `href="/v1/mgmt/auth/partner"`) {
			t.Fatalf("%s offers partner sign-in, which is not configured", path)
		}
		// Every link of the page answers a page.
		for _, m := range regexp.MustCompile(`href="(/account/[^"]*)"`).FindAllStringSubmatch(string(r.Body), -1) {
			if got := pageGet(t, s, m[1]).Status; got != http.StatusOK {
				t.Errorf("%s links %s, which answers %d", path, m[1], got)
			}
		}
	}

	t.Run("OKPartner", func(t *testing.T) {
		ps := partnerServer(t, newProvider(t))
		wantPage(t, pageGet(t, ps, "/account/"), http.StatusOK, `href="/v1/mgmt/auth/partner"`)
	})

	t.Run("OKResendVerification", func(t *testing.T) {
		email := newAddress("resend")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		wantPage(t, pageGet(t, s, "/account/resend-verification"), http.StatusOK, `action="/account/resend-verification"`, "Send a new link")
		wantPage(t, pagePost(t, s, "/account/resend-verification", url.Values{"email": {email}}), http.StatusOK, "we sent it a new verification link")
		var mails []servertest.Mail
		eventually(t, "the second verification mail", func() bool { mails = s.MailsTo(t, email); return len(mails) == 2 })
		tok := servertest.LinkToken(t, mails[1].Body, "/verify-email")
		wantPage(t, pagePost(t, s, "/account/verify-email", url.Values{"token": {tok}}), http.StatusOK, "Done: your e-mail address is verified.")
		wantPage(t, pagePost(t, s, "/account/resend-verification", url.Values{"email": {"not an address"}}), http.StatusBadRequest, "not a valid e-mail address")
	})
}

// TestAccountPagesNextSteps: the outcome pages no longer send people to a
// sign-in page that does not exist; they link the index, which says where.
func TestAccountPagesNextSteps(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t)
	email := newAddress("next")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
	tok := verifyToken(t, s, email)
	done := pagePost(t, s, "/account/verify-email", url.Values{"token": {tok}})
	wantPage(t, done, http.StatusOK, "Done: your e-mail address is verified.", `href="/account/"`)
	used := pageGet(t, s, "/account/verify-email?token="+url.QueryEscape(tok))
	wantPage(t, used, http.StatusGone, "already used", `href="/account/"`)
	for _, r := range []*servertest.Resp{done, used} {
		if b := string(r.Body); strings.Contains(b, "and sign in.") || strings.Contains(b, "sign in and ask") {
			t.Fatalf("a page points at a sign-in page:\n%s", b)
		}
	}
}

// A page refused by the per-address limit answers 429 with Retry-After and
// the limit's headers, as the API does (docs/design.md §7).
func TestAccountPageRateLimited(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t, func(c *config.Config) { c.RateLimit.Enabled = true; c.RateLimit.Account = 2 })
	var r *servertest.Resp
	for range 3 {
		r = pageGet(t, s, "/account/forgot-password")
	}
	wantPage(t, r, http.StatusTooManyRequests, "Too many attempts")
	if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n <= 0 {
		t.Fatalf("Retry-After = %q, want a positive number of seconds", r.Header.Get("Retry-After"))
	}
	if r.Header.Get("RateLimit-Limit") != "2" {
		t.Fatalf("RateLimit-Limit = %q, want 2", r.Header.Get("RateLimit-Limit"))
	}
}

// TestUnknownPageAddress pins that an address no route serves under the
// pages' prefixes is a "Page not found" page with the pages' headers, while
// one elsewhere keeps the API's JSON error.
func TestUnknownPageAddress(t *testing.T) {
	t.Parallel()
	s, _ := pageServer(t)
	for _, path := range []string{
		"/account/nothing", "/account/verify-email/extra",
		"/portal/01900000-0000-7000-8000-000000000001/production/no/such/page",
		"/portal/x/production/%2e%2e/sign-in", "/portal/x/production/devices/d/deactivate/more",
	} {
		t.Run("ErrNotFound", func(t *testing.T) {
			r := pageGet(t, s, path)
			wantPage(t, r, http.StatusNotFound, "Page not found", "There is no page at this address")
			if strings.Contains(string(r.Body), `"error"`) {
				t.Fatalf("%s answers JSON:\n%s", path, r.Body)
			}
		})
	}
	for _, path := range []string{"/v1/nothing", "/nothing", "/accountx", "/portalx/y"} {
		t.Run("ErrNotFound", func(t *testing.T) {
			r := pageGet(t, s, path).Want(t, http.StatusNotFound)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(r.Body), `"not_found"`) {
				t.Fatalf("%s: %s %s", path, r.Header.Get("Content-Type"), r.Body)
			}
		})
	}
}

package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"licensectl/config"
	"licensectl/server/servertest"
)

// provider is an in-process OpenID Connect provider. tamper, when set,
// corrupts the signature of the next ID token it issues.
type provider struct {
	*mockoidc.MockOIDC
	tamper   atomic.Bool
	userinfo atomic.Int64 // calls to the UserInfo endpoint
}

func newProvider(t *testing.T) *provider {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{MockOIDC: m}
	if err := m.AddMiddleware(p.corrupt); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	return p
}

// corrupt flips one character in the middle of the ID token's signature.
func (p *provider) corrupt(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == mockoidc.UserinfoEndpoint {
			p.userinfo.Add(1)
		}
		if r.URL.Path != mockoidc.TokenEndpoint || !p.tamper.CompareAndSwap(true, false) {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err == nil {
			if tok, ok := body["id_token"].(string); ok {
				i := strings.LastIndexByte(tok, '.') + 10
				c := byte('A')
				if tok[i] == 'A' {
					c = 'B'
				}
				body["id_token"] = tok[:i] + string(c) + tok[i+1:]
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		json.NewEncoder(w).Encode(body)
	})
}

// audienceUser issues ID tokens for another client.
type audienceUser struct{ *mockoidc.MockUser }

func (u audienceUser) Claims(scope []string, c *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	c.Audience = jwt.ClaimStrings{"someone-else"}
	return u.MockUser.Claims(scope, c)
}

// claimsUser is a provider account whose ID-token claims beyond the
// registered ones and whose UserInfo answer are given as they are, so a
// test can leave claims out or send them in any form.
type claimsUser struct {
	sub      string
	idClaims map[string]any
	userInfo map[string]any
}

func (u *claimsUser) ID() string { return u.sub }

func (u *claimsUser) Userinfo([]string) ([]byte, error) { return json.Marshal(u.userInfo) }

func (u *claimsUser) Claims(_ []string, c *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var m jwt.MapClaims
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range u.idClaims {
		m[k] = v
	}
	return m, nil
}

// idTokenUser states email and email_verified in the ID token, the flag
// even when false (mockoidc's own user leaves a false flag out).
func idTokenUser(sub, email string, verified bool) *claimsUser {
	return &claimsUser{sub: sub, idClaims: map[string]any{"email": email, "email_verified": verified}}
}

// partnerServer runs licensectl with partner sign-in against p.
func partnerServer(t *testing.T, p *provider) *servertest.Server {
	return servertest.New(t, func(c *config.Config) {
		c.Partner.Issuer, c.Partner.ClientID, c.Partner.ClientSecret = p.Issuer(), p.ClientID, p.ClientSecret
	})
}

// browser is a user agent with a cookie jar that does not follow redirects.
type browser struct {
	s *servertest.Server
	c *http.Client
}

func newBrowser(t *testing.T, s *servertest.Server) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{s: s, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(t *testing.T, u string, hdr ...string) *servertest.Resp {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return &servertest.Resp{Status: res.StatusCode, Header: res.Header, Body: body}
}

// start begins a sign-in and returns the provider's authorization URL.
func (b *browser) start(t *testing.T) string {
	t.Helper()
	r := b.get(t, b.s.URL+"/v1/mgmt/auth/partner").Want(t, http.StatusFound)
	var body struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	r.JSON(t, &body)
	if loc := r.Header.Get("Location"); loc == "" || loc != body.AuthorizationURL {
		t.Fatalf("Location %q, body %s", loc, r.Body)
	}
	return body.AuthorizationURL
}

// authorize signs user in at the provider and returns the query the
// provider sends the browser back with.
func (b *browser) authorize(t *testing.T, p *provider, authURL string, user mockoidc.User) url.Values {
	t.Helper()
	p.QueueUser(user)
	r := b.get(t, authURL).Want(t, http.StatusFound)
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != "/account/partner/callback" || !strings.HasPrefix(loc.String(), b.s.URL) {
		t.Fatalf("provider redirected to %s, want the account page of %s", loc, b.s.URL)
	}
	return loc.Query()
}

// callback calls the API's callback with the provider's query.
func (b *browser) callback(t *testing.T, q url.Values) *servertest.Resp {
	t.Helper()
	return b.get(t, b.s.URL+"/v1/mgmt/auth/partner/callback?"+q.Encode())
}

// signIn runs the whole flow for user and returns the callback's answer.
func (b *browser) signIn(t *testing.T, p *provider, user mockoidc.User) *servertest.Resp {
	t.Helper()
	return b.callback(t, b.authorize(t, p, b.start(t), user))
}

type signedIn struct {
	AccessToken     string `json:"access_token"`
	EmailVerified   bool   `json:"email_verified"`
	ProfileComplete bool   `json:"profile_complete"`
}

func wantSignedIn(t *testing.T, r *servertest.Resp, verified, complete bool) string {
	t.Helper()
	m := r.Want(t, http.StatusOK).Map(t)
	servertest.WantKeys(t, m, "access_token", "email_verified", "profile_complete")
	var out signedIn
	r.JSON(t, &out)
	if out.AccessToken == "" || out.EmailVerified != verified || out.ProfileComplete != complete {
		t.Fatalf("callback = %s, want email_verified %v, profile_complete %v", r.Body, verified, complete)
	}
	return out.AccessToken
}

var subjectSeq atomic.Int64

func partnerUser(email string, verified bool) *mockoidc.MockUser {
	return &mockoidc.MockUser{Subject: "sub-" + itoa(subjectSeq.Add(1)), Email: email, EmailVerified: verified}
}

func itoa(n int64) string { return strings.TrimSpace(string(must(json.Marshal(n)))) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var profileBody = map[string]any{"first_name": "Grace", "last_name": "Hopper", "organization_name": "Compilers Inc",
	"phone": "+5511999998888", "tos_accepted_version": "2026-01"}

func TestPartnerSignIn(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	s := partnerServer(t, p)

	t.Run("OK", func(t *testing.T) {
		b := newBrowser(t, s)
		authURL := b.start(t)
		u := must(url.Parse(authURL))
		q := u.Query()
		if !strings.HasPrefix(authURL, p.AuthorizationEndpoint()) {
			t.Fatalf("authorization URL %s is not the provider's", authURL)
		}
		for k, want := range map[string]string{"response_type": "code", "client_id": p.ClientID, "redirect_uri": s.URL + "/account/partner/callback",
			"scope": "openid email profile", "code_challenge_method": "S256"} {
			if q.Get(k) != want {
				t.Errorf("%s = %q, want %q", k, q.Get(k), want)
			}
		}
		for _, k := range []string{"state", "nonce", "code_challenge"} {
			if len(q.Get(k)) < 32 {
				t.Errorf("%s = %q, want a long random value", k, q.Get(k))
			}
		}
		cookies := b.c.Jar.Cookies(must(url.Parse(s.URL + "/v1/mgmt/auth/partner/callback")))
		if len(cookies) != 1 || cookies[0].Name != "licensectl_partner" || cookies[0].Value != q.Get("state") {
			t.Fatalf("cookies for the callback = %v, want licensectl_partner holding the state", cookies)
		}

		email := newAddress("grace")
		user := partnerUser(email, true)
		tok := wantSignedIn(t, b.callback(t, b.authorize(t, p, authURL, user)), true, false)

		// Only complete-profile and logout take the token before the profile is complete.
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusForbidden, "profile_incomplete")
		s.As(t, tok, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusForbidden, "profile_incomplete")
		s.As(t, tok, "POST", "/v1/mgmt/auth/partner/complete-profile", map[string]any{"first_name": "Grace"}).WantError(t, http.StatusBadRequest, "validation_failed")
		bad := map[string]any{}
		for k, v := range profileBody {
			bad[k] = v
		}
		bad["phone"] = "011 5555"
		wantFieldError(t, s.As(t, tok, "POST", "/v1/mgmt/auth/partner/complete-profile", bad), "phone")

		r := s.As(t, tok, "POST", "/v1/mgmt/auth/partner/complete-profile", profileBody).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, r, "success")
		org := s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if org["name"] != "Compilers Inc" || org["email_verified"] != true {
			t.Fatalf("organization = %v", org)
		}
		s.As(t, tok, "POST", "/v1/mgmt/applications", map[string]any{"name": "Flow-Matic"}).Want(t, http.StatusCreated)
		s.As(t, tok, "POST", "/v1/mgmt/auth/partner/complete-profile", profileBody).WantError(t, http.StatusConflict, "conflict")

		// The same identity signs in again to the same, now complete, account.
		again := wantSignedIn(t, newBrowser(t, s).signIn(t, p, user), true, true)
		org2 := s.As(t, again, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if org2["id"] != org["id"] {
			t.Fatalf("second sign-in reached organization %v, want %v", org2["id"], org["id"])
		}
		// The account has no password: a password login fails like a wrong one.
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]string{"email": email, "password": servertest.Password}).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		s.As(t, again, "POST", "/v1/mgmt/auth/logout", nil).Want(t, http.StatusOK)
		s.As(t, again, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})

	t.Run("ErrPartnerEmailUnverified", func(t *testing.T) {
		email := newAddress("unverified")
		user := idTokenUser("sub-"+email, email, false)
		newBrowser(t, s).signIn(t, p, user).WantError(t, http.StatusForbidden, "partner_email_unverified")
		// Not linked: a known identity would sign in whatever the provider
		// says of its address now.
		newBrowser(t, s).signIn(t, p, user).WantError(t, http.StatusForbidden, "partner_email_unverified")
		// Not created: the address is free, so signup mails a verification
		// link, not the already-registered notice.
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		if mails := s.MailsTo(t, email); len(mails) != 1 || !strings.Contains(mails[0].Body, "/verify-email?token=") {
			t.Fatalf("mails to %s after signup = %+v, want one verification mail", email, mails)
		}
	})

	t.Run("OKLinkOnVerifiedEmail", func(t *testing.T) {
		org := s.NewOrg(t)
		tok := wantSignedIn(t, newBrowser(t, s).signIn(t, p, partnerUser(org.OwnerEmail, true)), true, true)
		got := s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if got["id"] != org.ID {
			t.Fatalf("linked sign-in reached organization %v, want %v", got["id"], org.ID)
		}
		// The password still works alongside.
		s.Login(t, org.OwnerEmail, org.OwnerPassword)
	})

	t.Run("ErrPartnerEmailUnverifiedExisting", func(t *testing.T) {
		org := s.NewOrg(t)
		user := idTokenUser("sub-"+org.OwnerEmail, org.OwnerEmail, false)
		newBrowser(t, s).signIn(t, p, user).WantError(t, http.StatusForbidden, "partner_email_unverified")
		newBrowser(t, s).signIn(t, p, user).WantError(t, http.StatusForbidden, "partner_email_unverified")
		// The account is as it was: its password signs in to its organization.
		got := s.As(t, s.Login(t, org.OwnerEmail, org.OwnerPassword), "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if got["id"] != org.ID {
			t.Fatalf("password login reached organization %v, want %v", got["id"], org.ID)
		}
	})

	t.Run("ErrInvalidStateReused", func(t *testing.T) {
		b := newBrowser(t, s)
		q := b.authorize(t, p, b.start(t), partnerUser(newAddress("reuse"), true))
		wantSignedIn(t, b.callback(t, q), true, false)
		// The cookie is cleared by the first callback; send it again by hand.
		b.get(t, s.URL+"/v1/mgmt/auth/partner/callback?"+q.Encode(), "Cookie", "licensectl_partner="+q.Get("state")).WantError(t, http.StatusBadRequest, "invalid_state")
	})

	t.Run("ErrInvalidStateMissingCookie", func(t *testing.T) {
		b := newBrowser(t, s)
		q := b.authorize(t, p, b.start(t), partnerUser(newAddress("nocookie"), true))
		other := newBrowser(t, s)
		other.callback(t, q).WantError(t, http.StatusBadRequest, "invalid_state")
		// Refused without a cookie, the attempt is still the first browser's.
		wantSignedIn(t, b.callback(t, q), true, false)
	})

	t.Run("ErrInvalidStateWrongCookie", func(t *testing.T) {
		b1, b2 := newBrowser(t, s), newBrowser(t, s)
		q1 := b1.authorize(t, p, b1.start(t), partnerUser(newAddress("one"), true))
		b2.start(t)
		b2.callback(t, q1).WantError(t, http.StatusBadRequest, "invalid_state")
	})

	t.Run("ErrInvalidStateExpired", func(t *testing.T) {
		b := newBrowser(t, s)
		q := b.authorize(t, p, b.start(t), partnerUser(newAddress("late"), true))
		s.Clock().Advance(11 * time.Minute)
		b.callback(t, q).WantError(t, http.StatusBadRequest, "invalid_state")
	})

	t.Run("ErrPartnerDenied", func(t *testing.T) {
		b := newBrowser(t, s)
		state := must(url.Parse(b.start(t))).Query().Get("state")
		b.callback(t, url.Values{"state": {state}, "error": {"access_denied"}}).WantError(t, http.StatusBadRequest, "partner_denied")
		// The state is checked first: an error with a forged state is invalid_state.
		b2 := newBrowser(t, s)
		b2.start(t)
		b2.callback(t, url.Values{"state": {"forged"}, "error": {"access_denied"}}).WantError(t, http.StatusBadRequest, "invalid_state")
	})

	t.Run("ErrPartnerFailedNonce", func(t *testing.T) {
		b := newBrowser(t, s)
		u := must(url.Parse(b.start(t)))
		q := u.Query()
		q.Set("nonce", "not-the-nonce-of-this-attempt")
		u.RawQuery = q.Encode()
		b.callback(t, b.authorize(t, p, u.String(), partnerUser(newAddress("nonce"), true))).WantError(t, http.StatusUnauthorized, "partner_failed")
	})

	t.Run("ErrPartnerFailedAudience", func(t *testing.T) {
		b := newBrowser(t, s)
		b.signIn(t, p, audienceUser{partnerUser(newAddress("aud"), true)}).WantError(t, http.StatusUnauthorized, "partner_failed")
	})

	t.Run("ErrPartnerFailedSignature", func(t *testing.T) {
		b := newBrowser(t, s)
		q := b.authorize(t, p, b.start(t), partnerUser(newAddress("sig"), true))
		p.tamper.Store(true)
		r := b.callback(t, q)
		if p.tamper.Load() {
			t.Fatal("the token endpoint was not called")
		}
		r.WantError(t, http.StatusUnauthorized, "partner_failed")
	})

	t.Run("ErrPartnerFailedExchange", func(t *testing.T) {
		b := newBrowser(t, s)
		q := b.authorize(t, p, b.start(t), partnerUser(newAddress("exchange"), true))
		p.QueueError(&mockoidc.ServerError{Code: http.StatusInternalServerError, Error: mockoidc.InternalServerError, Description: "down"})
		r := b.callback(t, q)
		r.WantError(t, http.StatusUnauthorized, "partner_failed")
		if bytes.Contains(r.Body, []byte("down")) {
			t.Fatalf("the provider's answer leaked: %s", r.Body)
		}
	})

	t.Run("ErrForbiddenCompleteProfileWithAPIKey", func(t *testing.T) {
		org := s.NewOrg(t)
		s.As(t, org.APIKey, "POST", "/v1/mgmt/auth/partner/complete-profile", profileBody).WantError(t, http.StatusForbidden, "forbidden")
		s.As(t, s.OwnerToken(t, org), "POST", "/v1/mgmt/auth/partner/complete-profile", profileBody).WantError(t, http.StatusConflict, "conflict")
	})
}

func TestPartnerUnconfigured(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	for _, c := range []struct{ method, path, cred string }{
		{"GET", "/v1/mgmt/auth/partner", ""},
		{"GET", "/v1/mgmt/auth/partner/callback?code=x&state=y", ""},
		{"POST", "/v1/mgmt/auth/partner/complete-profile", ""},
		{"POST", "/v1/mgmt/auth/partner/complete-profile", s.OwnerToken(t, org)},
	} {
		t.Run("ErrNotFound", func(t *testing.T) {
			var hdr []string
			if c.cred != "" {
				hdr = []string{"Authorization", "Bearer " + c.cred}
			}
			s.Do(t, c.method, c.path, profileBody, hdr...).WantError(t, http.StatusNotFound, "not_found")
		})
	}
}

// TestPartnerProviderDown: a provider that cannot be reached is the
// service's trouble, not the user's.
func TestPartnerProviderDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := servertest.New(t, func(c *config.Config) { c.Partner.Issuer, c.Partner.ClientID = "http://"+addr, "client" })
	t.Run("ErrUnavailable", func(t *testing.T) {
		s.Do(t, "GET", "/v1/mgmt/auth/partner", nil).WantError(t, http.StatusServiceUnavailable, "unavailable")
	})
}

// resetByMail has the owner of email reset its password through the mailed
// link.
func resetByMail(t *testing.T, s *servertest.Server, email, newPassword string) {
	t.Helper()
	s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": email}).Want(t, http.StatusOK)
	mails := s.MailsTo(t, email)
	if len(mails) == 0 {
		t.Fatalf("no reset mail to %s", email)
	}
	tok := servertest.LinkToken(t, mails[len(mails)-1].Body, "/reset-password")
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": tok, "new_password": newPassword}))
}

// TestPartnerPreHijack: a partner identity linked to an account before its
// address was verified loses the account when the holder of the address
// resets the password; one linked to a verified account keeps it. A
// password set before the address was verified stops working when a
// provider's identity links to the account.
func TestPartnerPreHijack(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	s := partnerServer(t, p)
	const newPassword = "a brand new passphrase for 2027"

	t.Run("OKLinkMadeWhileUnverifiedDropped", func(t *testing.T) {
		email := newAddress("prehijack")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		// The provider vouches for the address: the identity links to the
		// unverified account, which the link verifies.
		sub := "sub-" + email
		tok := wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, email, true)), true, true)
		org := s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		// Linked, it signs in whatever the provider says of the address now.
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, email, false)), true, true)

		resetByMail(t, s, email, newPassword)
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		// The link is gone: the identity is new again and needs a verified
		// address to get anywhere.
		newBrowser(t, s).signIn(t, p, idTokenUser(sub, email, false)).WantError(t, http.StatusForbidden, "partner_email_unverified")
		own := s.As(t, s.Login(t, email, newPassword), "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if own["id"] != org["id"] {
			t.Fatalf("the owner reached organization %v, want %v", own["id"], org["id"])
		}
	})

	t.Run("OKPasswordSetWhileUnverifiedDropped", func(t *testing.T) {
		// The other way round: whoever signed up with the address set the
		// password; the provider's owner of the address arrives. The link
		// verifies the account, so that password and its sessions stop
		// opening it; the owner sets one through the mailbox.
		email := newAddress("prehijack-password")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		early := s.Login(t, email, servertest.Password)
		tok := wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser("sub-"+email, email, true)), true, true)
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]string{"email": email, "password": servertest.Password}).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		s.As(t, early, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
		resetByMail(t, s, email, newPassword)
		s.Login(t, email, newPassword)
	})

	t.Run("OKLinkMadeWhileVerifiedKept", func(t *testing.T) {
		org := s.NewOrg(t)
		sub := "sub-" + org.OwnerEmail
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, org.OwnerEmail, true)), true, true)
		resetByMail(t, s, org.OwnerEmail, newPassword)
		tok := wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, org.OwnerEmail, false)), true, true)
		got := s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if got["id"] != org.ID {
			t.Fatalf("partner sign-in reached organization %v, want %v", got["id"], org.ID)
		}
	})

	t.Run("OKAccountMadeByPartnerKept", func(t *testing.T) {
		email := newAddress("partner-made")
		sub := "sub-" + email
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, email, true)), true, false)
		resetByMail(t, s, email, newPassword)
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser(sub, email, false)), true, false)
	})
}

// TestPartnerUserInfo: an ID token without the e-mail claims sends the
// server to the provider's UserInfo endpoint (OIDC Core §5.4).
func TestPartnerUserInfo(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	s := partnerServer(t, p)
	bare := func(sub string, info map[string]any) *claimsUser {
		return &claimsUser{sub: sub, userInfo: info}
	}

	t.Run("OK", func(t *testing.T) {
		email := newAddress("userinfo")
		before := p.userinfo.Load()
		tok := wantSignedIn(t, newBrowser(t, s).signIn(t, p, bare("ui-ok", map[string]any{"sub": "ui-ok", "email": email, "email_verified": true})), true, false)
		if n := p.userinfo.Load() - before; n != 1 {
			t.Fatalf("UserInfo called %d times, want once", n)
		}
		s.As(t, tok, "POST", "/v1/mgmt/auth/partner/complete-profile", profileBody).Want(t, http.StatusOK)
		// The flag as a string, as some providers send it.
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, bare("ui-str", map[string]any{"sub": "ui-str", "email": newAddress("userinfo"), "email_verified": "true"})), true, false)
	})

	t.Run("OKIDTokenClaimsSuffice", func(t *testing.T) {
		before := p.userinfo.Load()
		wantSignedIn(t, newBrowser(t, s).signIn(t, p, idTokenUser("ui-idt", newAddress("userinfo"), true)), true, false)
		if n := p.userinfo.Load() - before; n != 0 {
			t.Fatalf("UserInfo called %d times with the claims in the ID token", n)
		}
	})

	t.Run("ErrPartnerEmailUnverified", func(t *testing.T) {
		newBrowser(t, s).signIn(t, p, bare("ui-unv", map[string]any{"sub": "ui-unv", "email": newAddress("userinfo"), "email_verified": false})).
			WantError(t, http.StatusForbidden, "partner_email_unverified")
		// Only the e-mail in the ID token: the flag is read from UserInfo.
		u := bare("ui-half", map[string]any{"sub": "ui-half", "email": newAddress("userinfo")})
		u.idClaims = map[string]any{"email": newAddress("userinfo")}
		newBrowser(t, s).signIn(t, p, u).WantError(t, http.StatusForbidden, "partner_email_unverified")
	})

	t.Run("ErrPartnerFailedOtherSubject", func(t *testing.T) {
		newBrowser(t, s).signIn(t, p, bare("ui-sub", map[string]any{"sub": "someone-else", "email": newAddress("userinfo"), "email_verified": true})).
			WantError(t, http.StatusUnauthorized, "partner_failed")
	})

	t.Run("ErrPartnerFailedNoAddress", func(t *testing.T) {
		newBrowser(t, s).signIn(t, p, bare("ui-none", map[string]any{"sub": "ui-none"})).WantError(t, http.StatusUnauthorized, "partner_failed")
	})
}

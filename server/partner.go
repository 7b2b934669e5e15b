package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"licensectl/server/api"
	"licensectl/store"
)

// Partner sign-in (docs/design.md §8): OpenID Connect with state, nonce and PKCE.
const (
	partnerCookie     = "licensectl_partner"
	partnerCookiePath = "/v1/mgmt/auth/partner"
	partnerAttemptTTL = 10 * time.Minute
	// partnerTimeout bounds each call to the provider.
	partnerTimeout = 10 * time.Second
	// partnerKeyName is the meta secret from which nonce and verifier are
	// derived.
	partnerKeyName = "partner_state_key"
)

// partnerSignIn talks to the configured provider. Discovery runs on first
// use and is kept once it succeeds, so a provider that is down at start-up
// does not keep the server from starting.
type partnerSignIn struct {
	s    *Server
	key  []byte
	http *http.Client

	mu       sync.Mutex
	prov     *oidc.Provider
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
}

// newPartnerSignIn returns nil when partner.issuer is not set.
func newPartnerSignIn(s *Server) (*partnerSignIn, error) {
	if s.cfg.Partner.Issuer == "" {
		return nil, nil
	}
	key, err := s.db.MetaSecret(partnerKeyName, func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	})
	if err != nil {
		return nil, err
	}
	return &partnerSignIn{s: s, key: key, http: &http.Client{Timeout: partnerTimeout}}, nil
}

// ctx carries the provider's HTTP client for go-oidc and x/oauth2.
func (p *partnerSignIn) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, p.http)
}

// provider returns the OAuth configuration and ID-token verifier,
// discovering the provider on first use.
func (p *partnerSignIn) provider(ctx context.Context) (*oauth2.Config, *oidc.IDTokenVerifier, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.oauth != nil {
		return p.oauth, p.verifier, nil
	}
	cfg := p.s.cfg.Partner
	// The provider keeps this context for its key set: no deadline on it,
	// the client's timeout bounds every fetch.
	prov, err := oidc.NewProvider(p.ctx(context.WithoutCancel(ctx)), cfg.Issuer)
	if err != nil {
		return nil, nil, &store.Error{Code: store.ECodeUnavailable, Message: "the sign-in provider cannot be reached; retry later", Err: err}
	}
	redirect := cfg.RedirectURL
	if redirect == "" {
		redirect = p.s.publicURL() + "/account/partner/callback"
	}
	p.prov = prov
	p.oauth = &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: prov.Endpoint(), RedirectURL: redirect, Scopes: cfg.Scopes}
	p.verifier = prov.Verifier(&oidc.Config{ClientID: cfg.ClientID, Now: p.s.now})
	return p.oauth, p.verifier, nil
}

// derive returns the attempt's nonce or PKCE verifier. Both follow from the
// state and a key only the server holds, so the store keeps nothing but the
// state's hash, and a copy of it cannot finish anyone's sign-in.
func (p *partnerSignIn) derive(purpose, state string) string {
	mac := hmac.New(sha256.New, p.key)
	mac.Write([]byte(purpose + "\x00" + state))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// partnerConfigured answers 404 before anything else when partner sign-in
// is not configured: unconfigured wins over rate limits, authentication and
// state checks.
func (s *Server) partnerConfigured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.partner == nil {
			writeError(w, r, s.logger, errPartnerOff)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var errPartnerOff = store.Errorf(store.ECodeNotFound, "partner sign-in is not configured")

// partnerStart creates a sign-in attempt and sends the browser to the
// provider.
func (s *Server) partnerStart(w http.ResponseWriter, r *http.Request) error {
	p := s.partner
	oc, _, err := p.provider(r.Context())
	if err != nil {
		return err
	}
	state := store.NewSecret("")
	if err := s.db.CreatePartnerAttempt(r.Context(), state, partnerAttemptTTL); err != nil {
		return err
	}
	u := oc.AuthCodeURL(state, oidc.Nonce(p.derive("nonce", state)), oauth2.S256ChallengeOption(p.derive("pkce", state)))
	http.SetCookie(w, &http.Cookie{Name: partnerCookie, Value: state, Path: partnerCookiePath, MaxAge: int(partnerAttemptTTL / time.Second),
		HttpOnly: true, Secure: s.requestIsHTTPS(r), SameSite: http.SameSiteLaxMode})
	w.Header().Set("Location", u)
	writeJSON(w, http.StatusFound, api.PartnerStarted{AuthorizationURL: u})
	return nil
}

// requestIsHTTPS reports whether the browser reached us over HTTPS: directly,
// or through a trusted proxy that says so.
func (s *Server) requestIsHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	a, err := netip.ParseAddr(remoteHost(r))
	return err == nil && s.trustedProxy(a) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// partnerCallback finishes a sign-in: the state (single use, matching the
// cookie), then the provider's error, then the code exchange with the
// verifier and the ID token's signature, issuer, audience, expiry and nonce.
func (s *Server) partnerCallback(w http.ResponseWriter, r *http.Request) error {
	p := s.partner
	q := r.URL.Query()
	state := q.Get("state")
	invalid := store.Errorf(store.ECodeInvalidState, "the sign-in attempt does not match this browser; start partner sign-in again")
	c, err := r.Cookie(partnerCookie)
	if err != nil || state == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(state)) != 1 {
		return invalid
	}
	if err := s.db.SpendPartnerAttempt(r.Context(), state); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: partnerCookie, Path: partnerCookiePath, MaxAge: -1, HttpOnly: true, Secure: s.requestIsHTTPS(r), SameSite: http.SameSiteLaxMode})
	if e := q.Get("error"); e != "" {
		return store.Errorf(store.ECodePartnerDenied, "the provider did not sign you in (%s); start partner sign-in again", printable(e, 64))
	}
	code := q.Get("code")
	if code == "" {
		return store.Invalid("code", "code is required")
	}
	id, err := p.identity(r.Context(), code, state)
	if err != nil {
		return err
	}
	res, err := s.db.PartnerSignIn(r.Context(), *id, s.cfg.Auth.SessionTTL)
	if err != nil {
		return err
	}
	tok, err := s.acct.signer.sign(res.Session)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PartnerSignedIn{AccessToken: tok, EmailVerified: res.Member.EmailVerified, ProfileComplete: res.Member.OrgID != ""})
	return nil
}

// identity exchanges the code and verifies the ID token. Every failure is
// partner_failed with its cause logged, never echoed.
func (p *partnerSignIn) identity(ctx context.Context, code, state string) (*store.PartnerIdentity, error) {
	oc, verifier, err := p.provider(ctx)
	if err != nil {
		return nil, err
	}
	failed := func(err error) error {
		return &store.Error{Code: store.ECodePartnerFailed, Message: "the sign-in could not be completed with the provider; start partner sign-in again", Err: err}
	}
	ctx, cancel := context.WithTimeout(p.ctx(ctx), partnerTimeout)
	defer cancel()
	tok, err := oc.Exchange(ctx, code, oauth2.VerifierOption(p.derive("pkce", state)))
	if err != nil {
		return nil, failed(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, failed(errNoIDToken)
	}
	idt, err := verifier.Verify(ctx, raw)
	if err != nil {
		return nil, failed(err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(p.derive("nonce", state))) != 1 {
		return nil, failed(errNonce)
	}
	email, verified, err := p.address(ctx, idt, tok)
	if err != nil {
		return nil, failed(err)
	}
	return &store.PartnerIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: email, EmailVerified: verified}, nil
}

// address is the e-mail address and whether the provider verified it: from
// the ID token, or, when the token lacks either claim, from the UserInfo
// endpoint (OIDC Core §5.4: a provider may return the claims of the email
// scope only there), whose subject must be the token's (§5.3.2).
func (p *partnerSignIn) address(ctx context.Context, idt *oidc.IDToken, tok *oauth2.Token) (string, bool, error) {
	var claims struct {
		Email         *string         `json:"email"`
		EmailVerified json.RawMessage `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil {
		return "", false, err
	}
	p.mu.Lock()
	prov := p.prov
	p.mu.Unlock()
	absent := len(claims.EmailVerified) == 0 || string(claims.EmailVerified) == "null"
	if (claims.Email == nil || absent) && prov.UserInfoEndpoint() != "" {
		info, err := prov.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return "", false, err
		}
		if info.Subject != idt.Subject {
			return "", false, errUserInfoSubject
		}
		return info.Email, info.EmailVerified, nil
	}
	email := ""
	if claims.Email != nil {
		email = *claims.Email
	}
	// Some providers send the flag as a string.
	v := string(claims.EmailVerified)
	return email, v == "true" || v == `"true"`, nil
}

type partnerError string

func (e partnerError) Error() string { return string(e) }

const (
	errNoIDToken       = partnerError("token response without id_token")
	errNonce           = partnerError("ID token nonce does not match the attempt")
	errUserInfoSubject = partnerError("UserInfo answered for another subject than the ID token's")
)

// completeProfile creates the organization of an account made by partner
// sign-in.
func (s *Server) completeProfile(w http.ResponseWriter, r *http.Request) error {
	var req api.CompleteProfileRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	_, err := s.db.CompleteProfile(r.Context(), principalFrom(r.Context()).ID, store.ProfileInput{FirstName: req.FirstName, LastName: req.LastName,
		OrganizationName: req.OrganizationName, Phone: req.Phone, TOSVersion: req.TOSAcceptedVersion})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

// printable keeps at most n printable ASCII characters of s, for echoing a
// provider's error code safely.
func printable(s string, n int) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() >= n {
			break
		}
		if c > 0x20 && c < 0x7f {
			b.WriteRune(c)
		}
	}
	return b.String()
}

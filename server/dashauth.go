package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"licensectl/store"
)

// Dashboard access tokens (docs/design.md §4): EdDSA JWTs naming a stored session,
// so that logout and reset-password end them before they expire.
const (
	dashIssuer   = "licensectl"
	dashAudience = "licensectl-dashboard"
	// dashKeyName is the meta secret holding the Ed25519 seed.
	dashKeyName = "dashboard_signing_key"
)

// dashSigner signs and checks dashboard access tokens.
type dashSigner struct {
	key ed25519.PrivateKey
	pub ed25519.PublicKey
	kid string
	now store.Clock
}

// newDashSigner loads the signing key from the store, generating it on first
// start, so tokens survive restarts.
func newDashSigner(secret func(name string, gen func() ([]byte, error)) ([]byte, error), now store.Clock) (*dashSigner, error) {
	seed, err := secret(dashKeyName, func() ([]byte, error) {
		b := make([]byte, ed25519.SeedSize)
		_, err := rand.Read(b)
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard signing key: %w", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("dashboard signing key: stored seed has %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	key := ed25519.NewKeyFromSeed(seed)
	pub := key.Public().(ed25519.PublicKey)
	// The kid names the key by its public half, so a future rotation can
	// keep verifying tokens of the previous key for their remaining life.
	sum := sha256.Sum256(pub)
	return &dashSigner{key: key, pub: pub, kid: "dash-" + base64.RawURLEncoding.EncodeToString(sum[:9]), now: now}, nil
}

// dashClaims are the claims of a dashboard access token.
type dashClaims struct {
	SessionID string `json:"sid"`
	jwt.RegisteredClaims
}

// sign returns the access token of a session.
func (d *dashSigner) sign(sess *store.DashboardSession) (string, error) {
	c := dashClaims{SessionID: sess.ID, RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    dashIssuer,
		Subject:   sess.MemberID,
		Audience:  jwt.ClaimStrings{dashAudience},
		IssuedAt:  jwt.NewNumericDate(sess.CreatedAt),
		ExpiresAt: jwt.NewNumericDate(sess.ExpiresAt),
	}}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["kid"] = d.kid
	return t.SignedString(d.key)
}

// parse checks a token's signature, algorithm, issuer, audience and expiry
// and returns its claims.
func (d *dashSigner) parse(tok string) (*dashClaims, error) {
	c := new(dashClaims)
	_, err := jwt.ParseWithClaims(tok, c, func(t *jwt.Token) (any, error) {
		if kid, _ := t.Header["kid"].(string); kid != d.kid {
			return nil, errors.New("unknown kid")
		}
		return d.pub, nil
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(dashIssuer),
		jwt.WithAudience(dashAudience),
		jwt.WithTimeFunc(func() time.Time { return d.now() }),
	)
	if err != nil {
		return nil, err
	}
	if c.SessionID == "" || c.Subject == "" {
		return nil, errors.New("token lacks sid or sub")
	}
	return c, nil
}

// authenticateDashboard resolves a dashboard access token to its member. The
// member is read on every request, so a role change or removal takes effect
// at once. Anything wrong is unauthenticated, without saying what.
func (s *Server) authenticateDashboard(ctx context.Context, tok string) (*principal, error) {
	unauth := store.Errorf(store.ECodeUnauthenticated, "invalid or expired token")
	c, err := s.acct.signer.parse(tok)
	if err != nil {
		return nil, unauth
	}
	res, err := s.db.DashboardSession(ctx, c.SessionID)
	if err != nil {
		return nil, err
	}
	if res.Member.ID != c.Subject {
		return nil, unauth
	}
	m := res.Member
	return &principal{Kind: store.ActorMember, ID: m.ID, OrgID: m.OrgID, Role: m.Role, Verified: m.EmailVerified, SessionID: res.Session.ID}, nil
}

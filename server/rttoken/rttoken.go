// Package rttoken issues and verifies runtime access tokens: JWTs of type
// at+jwt signed with EdDSA by an application environment's Ed25519 key, and
// the JWKS document that lets desktop clients verify them offline. The
// server itself never verifies signatures: it finds a token's session by
// the session id the token names and proves the token by its hash.
package rttoken

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"licensectl/store"
)

// TokenType is the typ header of runtime access tokens (RFC 9068).
const TokenType = "at+jwt"

// Claims are the JSON claims of a runtime access token.
type Claims struct {
	jwt.RegisteredClaims
	SessionID    string   `json:"sid"`
	Env          string   `json:"env"`
	LicenseID    string   `json:"lic,omitempty"`
	DeviceID     string   `json:"dev"`
	Entitlements []string `json:"ent"`
	Roles        []string `json:"roles"`
	// Maintenance is when the license's maintenance (update eligibility)
	// ends; absent when unlimited or the session has no license.
	Maintenance *jwt.NumericDate `json:"mnt,omitempty"`
}

// Sign is a store.TokenSigner: it signs c with env's key, naming the key in
// the kid header.
func Sign(env *store.Environment, c store.AccessClaims) (string, error) {
	if len(env.SigningKey) != ed25519.PrivateKeySize {
		return "", errors.New("rttoken: environment has no signing key")
	}
	ents := c.Entitlements
	if ents == nil {
		ents = []string{}
	}
	claims := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			ID:        c.ID,
			Issuer:    c.Issuer,
			Subject:   c.Subject,
			Audience:  jwt.ClaimStrings{c.Audience},
			IssuedAt:  jwt.NewNumericDate(c.IssuedAt),
			ExpiresAt: jwt.NewNumericDate(c.ExpiresAt),
		},
		SessionID: c.SessionID, Env: c.Env, LicenseID: c.LicenseID, DeviceID: c.DeviceID, Entitlements: ents, Roles: c.Roles,
	}
	if c.MaintenanceExpiresAt != nil {
		claims.Maintenance = jwt.NewNumericDate(*c.MaintenanceExpiresAt)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["typ"] = TokenType
	tok.Header["kid"] = env.KeyID
	return tok.SignedString(env.SigningKey)
}

// SessionID is the sid claim of a token, read without verifying it: a
// store.RuntimeOptions.SessionOf. The store that finds the session by it
// still compares the whole token's hash with the session's, so a forged
// token naming a real session proves nothing. "" when tok is not a JWT
// carrying a sid.
func SessionID(tok string) string {
	_, rest, ok := strings.Cut(tok, ".")
	payload, _, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || len(payload) > maxPayload {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return ""
	}
	var c struct {
		SessionID string `json:"sid"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return ""
	}
	return c.SessionID
}

// maxPayload bounds what SessionID decodes: a token this server signs has
// a payload of a few hundred bytes, a few thousand with many entitlements.
const maxPayload = 64 << 10

// Verify checks a token's signature with the public keys of an application
// (by kid), the pinned algorithm, typ, audience, issuer and expiry. Clients
// do this offline with the JWKS; the server's tests use it.
func Verify(tok string, app *store.Application, issuer string, opts ...jwt.ParserOption) (*Claims, error) {
	c := new(Claims)
	opts = append([]jwt.ParserOption{jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithAudience(app.ID),
		jwt.WithIssuer(issuer), jwt.WithExpirationRequired()}, opts...)
	_, err := jwt.ParseWithClaims(tok, c, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != TokenType {
			return nil, fmt.Errorf("typ %q is not %s", typ, TokenType)
		}
		kid, _ := t.Header["kid"].(string)
		for _, e := range app.Environments {
			if e.KeyID == kid && len(e.SigningKey) == ed25519.PrivateKeySize {
				return e.SigningKey.Public(), nil
			}
		}
		return nil, fmt.Errorf("unknown kid %q", kid)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// JWK is one public key of a JWKS document (RFC 8037 OKP form).
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

// JWKS is a JSON Web Key Set.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// KeySet returns the JWKS document of one environment: its public key
// alone (none when it has no signing key). One environment per document
// (docs/design.md §5), so that a client built for production, holding the
// production document, cannot verify a development token.
func KeySet(env *store.Environment) JWKS {
	out := JWKS{Keys: []JWK{}}
	if env == nil || len(env.SigningKey) != ed25519.PrivateKeySize {
		return out
	}
	pub := env.SigningKey.Public().(ed25519.PublicKey)
	out.Keys = append(out.Keys, JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: env.KeyID, Alg: "EdDSA", Use: "sig"})
	return out
}

// Document is the JWKS document of env exactly as the server serves it (the
// key set as JSON and a newline), so that what the CLI writes for pinning
// is byte for byte what a client fetches.
func Document(env *store.Environment) []byte {
	raw, err := json.Marshal(KeySet(env))
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return append(raw, '\n')
}

// VerifyKeySet checks a token as a desktop client does offline: with a JWKS
// document (the key named by kid), the pinned algorithm, typ, audience (the
// application id), issuer and expiry, and the env claim equal to env, the
// environment the client was built for. The env check stands on its own:
// a document that held keys of several environments would still not let a
// development token pass for production.
func VerifyKeySet(tok string, ks JWKS, audience, issuer, env string) (*Claims, error) {
	c := new(Claims)
	_, err := jwt.ParseWithClaims(tok, c, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != TokenType {
			return nil, fmt.Errorf("typ %q is not %s", typ, TokenType)
		}
		kid, _ := t.Header["kid"].(string)
		for _, k := range ks.Keys {
			if k.Kid != kid || k.Kty != "OKP" || k.Crv != "Ed25519" {
				continue
			}
			x, err := base64.RawURLEncoding.DecodeString(k.X)
			if err != nil || len(x) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("key %q is not an Ed25519 key", kid)
			}
			return ed25519.PublicKey(x), nil
		}
		return nil, fmt.Errorf("unknown kid %q", kid)
	}, jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithAudience(audience), jwt.WithIssuer(issuer), jwt.WithExpirationRequired())
	if err != nil {
		return nil, err
	}
	if c.Env != env {
		return nil, fmt.Errorf("token of environment %q, want %q", c.Env, env)
	}
	return c, nil
}

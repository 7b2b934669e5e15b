// Package rttoken issues and verifies runtime access tokens: JWTs of type
// at+jwt signed with EdDSA by an application environment's Ed25519 key, and
// the JWKS document that lets desktop clients verify them offline. The
// server itself never verifies signatures: it finds sessions by token hash.
package rttoken

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"

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
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["typ"] = TokenType
	tok.Header["kid"] = env.KeyID
	return tok.SignedString(env.SigningKey)
}

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

// KeySet returns the public keys of both environments of an application.
func KeySet(app *store.Application) JWKS {
	out := JWKS{Keys: []JWK{}}
	for _, e := range app.Environments {
		if len(e.SigningKey) != ed25519.PrivateKeySize {
			continue
		}
		pub := e.SigningKey.Public().(ed25519.PublicKey)
		out.Keys = append(out.Keys, JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: e.KeyID, Alg: "EdDSA", Use: "sig"})
	}
	return out
}

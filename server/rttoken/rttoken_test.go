package rttoken

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"licensectl/store"
)

func testApp(t testing.TB) *store.Application {
	t.Helper()
	a := &store.Application{ID: store.NewID()}
	for _, name := range []string{store.EnvDevelopment, store.EnvProduction} {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		a.Environments = append(a.Environments, store.Environment{ID: store.NewID(), Name: name, SigningKey: priv, KeyID: store.NewID()})
	}
	return a
}

func claims(app *store.Application, now time.Time) store.AccessClaims {
	return store.AccessClaims{ID: store.NewID(), Issuer: "licensectl", Audience: app.ID, Subject: "lic-1", SessionID: "sid-1", Env: store.EnvProduction,
		LicenseID: "lic-1", DeviceID: "dev-1", Entitlements: []string{"pro"}, IssuedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
}

func TestSignVerify(t *testing.T) {
	app := testApp(t)
	now := time.Now()
	env := app.Env(store.EnvProduction)
	tok, err := Sign(env, claims(app, now))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Verify(tok, app, "licensectl")
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if c.SessionID != "sid-1" || c.Env != "production" || c.DeviceID != "dev-1" || len(c.Entitlements) != 1 {
		t.Fatalf("claims = %+v", c)
	}
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{})
	if err != nil || parsed.Header["typ"] != TokenType || parsed.Header["kid"] != env.KeyID || parsed.Header["alg"] != "EdDSA" {
		t.Fatalf("header = %v, %v", parsed.Header, err)
	}

	t.Run("ErrAudience", func(t *testing.T) {
		other := *app
		other.ID = store.NewID()
		if _, err := Verify(tok, &other, "licensectl"); err == nil {
			t.Fatal("token for another application verified")
		}
	})
	t.Run("ErrIssuer", func(t *testing.T) {
		if _, err := Verify(tok, app, "someone-else"); err == nil {
			t.Fatal("token of another issuer verified")
		}
	})
	t.Run("ErrExpired", func(t *testing.T) {
		old, _ := Sign(env, claims(app, now.Add(-time.Hour)))
		if _, err := Verify(old, app, "licensectl"); err == nil {
			t.Fatal("expired token verified")
		}
	})
	t.Run("ErrAlgNone", func(t *testing.T) {
		parts := strings.Split(tok, ".")
		none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"aud": app.ID, "iss": "licensectl", "exp": now.Add(time.Hour).Unix()})
		none.Header["typ"], none.Header["kid"] = TokenType, env.KeyID
		s, err := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(s, app, "licensectl"); err == nil {
			t.Fatal("alg none verified")
		}
		if _, err := Verify(parts[0]+"."+parts[1]+".AAAA", app, "licensectl"); err == nil {
			t.Fatal("bad signature verified")
		}
	})
	t.Run("ErrHS256", func(t *testing.T) {
		hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"aud": app.ID, "iss": "licensectl", "exp": now.Add(time.Hour).Unix()})
		hs.Header["typ"], hs.Header["kid"] = TokenType, env.KeyID
		s, _ := hs.SignedString([]byte(env.SigningKey.Public().(ed25519.PublicKey)))
		if _, err := Verify(s, app, "licensectl"); err == nil {
			t.Fatal("HS256 verified")
		}
	})
}

func TestKeySet(t *testing.T) {
	app := testApp(t)
	for _, name := range []string{store.EnvProduction, store.EnvDevelopment} {
		env := app.Env(name)
		ks := KeySet(env)
		if len(ks.Keys) != 1 {
			t.Fatalf("%s: keys = %+v, want the environment's one", name, ks.Keys)
		}
		if k := ks.Keys[0]; k.Kty != "OKP" || k.Crv != "Ed25519" || k.Alg != "EdDSA" || k.Use != "sig" || k.Kid != env.KeyID {
			t.Fatalf("%s: key = %+v", name, k)
		}
	}
	if ks := KeySet(nil); ks.Keys == nil || len(ks.Keys) != 0 {
		t.Fatalf("KeySet(nil) = %+v, want no keys", ks)
	}
}

func TestVerifyKeySet(t *testing.T) {
	app := testApp(t)
	now := time.Now()
	prod, dev := app.Env(store.EnvProduction), app.Env(store.EnvDevelopment)
	prodTok, err := Sign(prod, claims(app, now))
	if err != nil {
		t.Fatal(err)
	}
	dc := claims(app, now)
	dc.Env = store.EnvDevelopment
	devTok, err := Sign(dev, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		if _, err := VerifyKeySet(prodTok, KeySet(prod), app.ID, "licensectl", store.EnvProduction); err != nil {
			t.Fatalf("production token against the production set: %v", err)
		}
		if _, err := VerifyKeySet(devTok, KeySet(dev), app.ID, "licensectl", store.EnvDevelopment); err != nil {
			t.Fatalf("development token against the development set: %v", err)
		}
	})
	t.Run("ErrOtherEnvironmentsKey", func(t *testing.T) {
		if _, err := VerifyKeySet(devTok, KeySet(prod), app.ID, "licensectl", store.EnvProduction); err == nil {
			t.Fatal("development token verified with the production set")
		}
	})
	t.Run("ErrEnvClaim", func(t *testing.T) {
		both := JWKS{Keys: append(KeySet(prod).Keys, KeySet(dev).Keys...)}
		if _, err := VerifyKeySet(devTok, both, app.ID, "licensectl", store.EnvProduction); err == nil || !strings.Contains(err.Error(), "environment") {
			t.Fatalf("development token for a production client: err = %v", err)
		}
	})
	t.Run("ErrAudience", func(t *testing.T) {
		if _, err := VerifyKeySet(prodTok, KeySet(prod), store.NewID(), "licensectl", store.EnvProduction); err == nil {
			t.Fatal("token for another application verified")
		}
	})
}

func TestSessionID(t *testing.T) {
	app := testApp(t)
	tok, err := Sign(app.Env(store.EnvProduction), claims(app, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(tok, ".")
	_, sig, _ := strings.Cut(rest, ".")
	enc := base64.RawURLEncoding.EncodeToString
	for _, c := range []struct {
		name, tok, want string
	}{
		{"signed", tok, "sid-1"},
		{"unsigned payload naming a session", head + "." + enc([]byte(`{"sid":"sid-9"}`)) + "." + sig, "sid-9"},
		{"no sid", head + "." + enc([]byte(`{"sub":"x"}`)) + "." + sig, ""},
		{"sid not a string", head + "." + enc([]byte(`{"sid":7}`)) + "." + sig, ""},
		{"payload not JSON", head + "." + enc([]byte(`sid-1`)) + "." + sig, ""},
		{"payload not base64url", head + ".%%%." + sig, ""},
		{"one segment", "sid-1", ""},
		{"two segments", head + "." + enc([]byte(`{"sid":"sid-1"}`)), ""},
		{"empty", "", ""},
		{"payload too large", head + "." + enc([]byte(`{"sid":"sid-1","x":"`+strings.Repeat("a", maxPayload)+`"}`)) + "." + sig, ""},
	} {
		if got := SessionID(c.tok); got != c.want {
			t.Errorf("%s: SessionID = %q, want %q", c.name, got, c.want)
		}
	}
}

// Command runtime-client is what a desktop application does with the
// licensectl runtime API, start to finish: identify the application, activate
// a license key on this device, verify the access token offline with the
// application's public keys, validate the session with the server, check an
// entitlement, refresh the session, log out, and free the device.
//
//	go run ./examples/runtime-client -server http://127.0.0.1:8080 \
//	    -public-key app_pub_live_… -license 7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE -entitlement export.pdf
//
// A build is for one environment (-environment, production by default): it
// verifies tokens with that environment's key set only and checks their env
// claim, so a development token never passes a production build's check.
//
// It needs nothing but the standard library and a JWT library; a real client
// keeps the refresh token in the operating system's credential store.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"licensectl.dev/sdk/go/machinefile"
)

// Config is what the program needs to know.
type Config struct {
	Server      string // base URL of the licensing server
	PublicKey   string // the application environment's app_pub_… key
	License     string // the license key the user typed
	Fingerprint string // a stable identifier of this device
	Entitlement string // a feature to check
	Issuer      string // the iss claim the server signs with (runtime.issuer)
	Environment string // the environment this build is for: production or development
}

func main() {
	var c Config
	host, _ := os.Hostname()
	flag.StringVar(&c.Server, "server", "http://127.0.0.1:8080", "licensing server base URL")
	flag.StringVar(&c.PublicKey, "public-key", os.Getenv("LICENSECTL_PUBLIC_KEY"), "application public key (app_pub_…)")
	flag.StringVar(&c.License, "license", "", "license key to activate")
	flag.StringVar(&c.Fingerprint, "fingerprint", "example-"+host, "device fingerprint")
	flag.StringVar(&c.Entitlement, "entitlement", "export.pdf", "entitlement key to check")
	flag.StringVar(&c.Issuer, "issuer", "licensectl", "expected token issuer")
	flag.StringVar(&c.Environment, "environment", "production", "environment this build is for (production or development)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// Session is the runtime session pair with its expiry times.
type Session struct {
	AccessToken      string    `json:"access_token"`
	RefreshToken     string    `json:"refresh_token"`
	AccessExpiresAt  time.Time `json:"access_expires_at"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at"`
}

// Run walks through the runtime API once, printing what happens to out.
func Run(ctx context.Context, c Config, out io.Writer) error {
	api := &client{base: c.Server, key: c.PublicKey, http: &http.Client{Timeout: 15 * time.Second}}

	// 1. Which application is this key for? Also a cheap connectivity check.
	var app struct {
		ApplicationID string `json:"application_id"`
		Name          string `json:"name"`
		Environment   string `json:"environment"`
	}
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/applications/init", nil, "", &app); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	fmt.Fprintf(out, "application %q (%s)\n", app.Name, app.Environment)

	// 2. Activate: a fresh timestamp and a single-use nonce make a captured
	// request useless to replay.
	var act struct {
		Session
		Entitlements []string `json:"entitlements"`
		License      struct {
			Status    string     `json:"status"`
			ExpiresAt *time.Time `json:"expires_at"`
		} `json:"license"`
	}
	err := api.call(ctx, http.MethodPost, "/v1/runtime/licenses/activate", map[string]string{
		"license_key": c.License, "device_fingerprint": c.Fingerprint,
		"timestamp": time.Now().UTC().Format(time.RFC3339), "nonce": nonce(),
	}, "", &act)
	if err != nil {
		return fmt.Errorf("activate: %w", err)
	}
	fmt.Fprintf(out, "activated: license %s, entitlements %v\n", act.License.Status, act.Entitlements)
	sess := act.Session

	// 3. Offline: the access token is a JWT signed with the environment's
	// Ed25519 key. With the key set cached, the application can start
	// without the network until the token expires. The key set is the one
	// of the environment this build is for, named explicitly.
	env := c.Environment
	if env == "" {
		env = "production"
	}
	keys, err := api.keySet(ctx, app.ApplicationID, env)
	if err != nil {
		return fmt.Errorf("jwks: %w", err)
	}
	claims, err := verifyOffline(sess.AccessToken, keys, app.ApplicationID, c.Issuer, env)
	if err != nil {
		return fmt.Errorf("offline verification: %w", err)
	}
	fmt.Fprintf(out, "verified offline: entitlements %v, expires %s\n", claims.Entitlements, claims.ExpiresAt.UTC().Format(time.RFC3339))

	// 4. Online: the server checks the whole chain (license, user, device,
	// application) and answers valid or the reason it is not.
	var v struct {
		Valid        bool     `json:"valid"`
		Reason       string   `json:"reason"`
		Entitlements []string `json:"entitlements"`
	}
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/sessions/validate", map[string]string{"access_token": sess.AccessToken}, "", &v); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if !v.Valid {
		return fmt.Errorf("session not valid: %s", v.Reason)
	}
	fmt.Fprintf(out, "validated: valid\n")

	// 5. One feature.
	var g struct {
		Granted bool `json:"granted"`
	}
	if err := api.call(ctx, http.MethodGet, "/v1/runtime/entitlements/check?key="+url.QueryEscape(c.Entitlement), nil, sess.AccessToken, &g); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	fmt.Fprintf(out, "entitlement %s: granted=%v\n", c.Entitlement, g.Granted)

	// 5b. For working offline longer than a token lives: a machine file,
	// signed by the same environment key and encrypted for this device and
	// license key. Keep it on disk; verify it at start without the network.
	var mf struct {
		Certificate string `json:"certificate"`
	}
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/licenses/checkout", map[string]string{
		"license_key": c.License, "timestamp": time.Now().UTC().Format(time.RFC3339), "nonce": nonce(),
	}, sess.AccessToken, &mf); err != nil {
		return fmt.Errorf("machine file: %w", err)
	}
	file, err := machinefile.Verify(mf.Certificate, keys, c.License, c.Fingerprint, time.Now())
	if err != nil {
		return fmt.Errorf("machine file verification: %w", err)
	}
	fmt.Fprintf(out, "machine file verified offline: entitlements %v, until %s\n", file.License.Entitlements, file.Meta.ExpiresAt.Format(time.RFC3339))

	// 6. Before the access token expires: a new pair. The old refresh token
	// is spent; keep only the new one.
	var next Session
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/sessions/refresh", map[string]string{"refresh_token": sess.RefreshToken}, "", &next); err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	fmt.Fprintf(out, "refreshed: access token valid until %s\n", next.AccessExpiresAt.UTC().Format(time.RFC3339))

	// 7. Sign out of this session.
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/auth/logout", map[string]string{"access_token": next.AccessToken}, "", nil); err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	fmt.Fprintln(out, "logged out")

	// 8. Free this device's seat, e.g. before moving to a new computer.
	var reset struct {
		DeviceResetsRemaining int `json:"device_resets_remaining"`
	}
	if err := api.call(ctx, http.MethodPost, "/v1/runtime/devices/reset", map[string]string{
		"license_key": c.License, "device_fingerprint": c.Fingerprint,
	}, "", &reset); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	fmt.Fprintf(out, "device reset: %d resets left\n", reset.DeviceResetsRemaining)
	return nil
}

// APIError is the runtime API's error body: {"error": {"code", "message"}}.
type APIError struct {
	Status     int
	Code       string `json:"code"`
	Message    string `json:"message"`
	RetryAfter time.Duration
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// client calls the runtime API with the application's public key.
type client struct {
	base, key string
	http      *http.Client
}

func (c *client) call(ctx context.Context, method, path string, body any, bearer string, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", c.key)
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("authorization", "Bearer "+bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err // offline: keep working on the offline-verified token until it expires
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error APIError `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error.Code == "" {
			return fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
		}
		e.Error.Status = resp.StatusCode
		if s, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil {
			e.Error.RetryAfter = s
		}
		return &e.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// keySet fetches the public key of one environment of the application
// (JWKS, RFC 8037 OKP keys).
func (c *client) keySet(ctx context.Context, appID, env string) (map[string]ed25519.PublicKey, error) {
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Crv string `json:"crv"`
			X   string `json:"x"`
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if err := c.call(ctx, http.MethodGet, "/v1/runtime/applications/"+url.PathEscape(appID)+"/jwks.json?environment="+url.QueryEscape(env), nil, "", &set); err != nil {
		return nil, err
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range set.Keys {
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if k.Kty != "OKP" || k.Crv != "Ed25519" || err != nil || len(x) != ed25519.PublicKeySize {
			continue
		}
		keys[k.Kid] = ed25519.PublicKey(x)
	}
	if len(keys) == 0 {
		return nil, errors.New("no Ed25519 keys in the key set")
	}
	return keys, nil
}

// Claims are the access token claims a client reads.
type Claims struct {
	jwt.RegisteredClaims
	Entitlements []string `json:"ent"`
	License      string   `json:"lic"`
	Device       string   `json:"dev"`
	Env          string   `json:"env"`
}

// verifyOffline checks the token as the server signed it: EdDSA only (never
// "none" or HMAC), typ at+jwt, a known kid, this application as audience,
// the server as issuer, not expired, and issued for env, the environment
// this build is for (a development token must not unlock a production build
// even if its key were in the set).
func verifyOffline(token string, keys map[string]ed25519.PublicKey, appID, issuer, env string) (*Claims, error) {
	c := new(Claims)
	_, err := jwt.ParseWithClaims(token, c, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != "at+jwt" {
			return nil, fmt.Errorf("typ %q is not at+jwt", typ)
		}
		kid, _ := t.Header["kid"].(string)
		k, ok := keys[kid]
		if !ok {
			return nil, fmt.Errorf("unknown key %q: fetch the key set again", kid)
		}
		return k, nil
	}, jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithAudience(appID), jwt.WithIssuer(issuer), jwt.WithExpirationRequired())
	if err != nil {
		return nil, err
	}
	if c.Env != env {
		return nil, fmt.Errorf("token of environment %q, this build is for %q", c.Env, env)
	}
	return c, nil
}

// nonce is 128 random bits in hex: 32 characters, within the 16–128 allowed.
func nonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

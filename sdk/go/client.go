// Package licensing is the licensectl client library for desktop
// applications (docs/client.md): activation and sign-in, online validation
// with answers the server signs over the client's nonce (RFC 9421), the
// session's refresh, machine files for offline use, a watermark that
// refuses a clock set back, and floating-seat leases. It uses the standard
// library only.
//
//	c, err := licensing.New(licensing.Config{BaseURL: "https://licenses.example.com",
//		PublicKey: "app_pub_live_…", JWKS: jwks, StateDir: dir})
//	err = c.Activate(ctx, typedKey, fingerprint)
//	st, err := c.Validate(ctx) // st.Valid, st.Offline, st.Entitlements
package licensing

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Config is what a Client needs. BaseURL, PublicKey, JWKS and StateDir are
// required.
type Config struct {
	// BaseURL is the licensing server, e.g. https://licenses.example.com.
	BaseURL string
	// PublicKey is the application environment's app_pub_… key.
	PublicKey string
	// ApplicationID is the application's id. When set, Activate and Login
	// send this machine's Components hashed with it, so that a machine
	// whose fingerprint changes keeps its seat; empty sends none.
	ApplicationID string
	// JWKS is the environment's key set document as the server serves it
	// (licensectl app jwks -o FILE), embedded at build time: answers and
	// machine files signed by any other key are refused.
	JWKS []byte
	// StateDir holds the session, the machine file and the clock
	// watermark; several processes may share it.
	StateDir string
	// ClockTolerance is how far the system clock may read behind the
	// latest trusted time seen before ErrClockTampered; 10 minutes when 0.
	ClockTolerance time.Duration
	// HTTPClient makes the requests; one with a 30 s timeout when nil.
	HTTPClient *http.Client
	// Now is the system clock; tests set it.
	Now func() time.Time
}

// Client talks to one application environment of a licensing server.
type Client struct {
	cfg  Config
	base *url.URL
	keys map[string]ed25519.PublicKey
	st   *stateDir
	mu   sync.Mutex // one refresh at a time within the process
}

// ErrNotGenuine is returned when an answer is not the server's answer to
// this request: unsigned, signed over another nonce (a replay), by a key that
// is not pinned, or altered. Nothing stored changes.
var ErrNotGenuine = errors.New("licensing: the answer is not genuine")

// ErrClockTampered is returned when the system clock reads more than
// ClockTolerance earlier than the latest trusted time the library has seen.
var ErrClockTampered = errors.New("licensing: the system clock is behind the latest trusted time (set back?)")

// Error is a refusal of the API: the HTTP status and the API's code
// (docs/errors.md), e.g. 403 device_limit_reached.
type Error struct {
	Status  int
	Code    string
	Message string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("licensing: %d %s: %s", e.Status, e.Code, e.Message)
}

// New checks cfg and returns a Client. The JWKS must hold at least one
// Ed25519 key.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" || cfg.PublicKey == "" || cfg.StateDir == "" {
		return nil, errors.New("licensing: BaseURL, PublicKey and StateDir are required")
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("licensing: BaseURL %q is not an http(s) URL", cfg.BaseURL)
	}
	keys, err := parseJWKS(cfg.JWKS)
	if err != nil {
		return nil, err
	}
	if cfg.ClockTolerance <= 0 {
		cfg.ClockTolerance = 10 * time.Minute
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	st, err := openState(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, base: base, keys: keys, st: st}, nil
}

// parseJWKS reads the Ed25519 keys of a JWKS document by kid.
func parseJWKS(doc []byte) (map[string]ed25519.PublicKey, error) {
	var set struct {
		Keys []struct {
			Kty, Crv, X, Kid string
		} `json:"keys"`
	}
	if err := json.Unmarshal(doc, &set); err != nil {
		return nil, fmt.Errorf("licensing: JWKS: %w", err)
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Kid == "" {
			continue
		}
		raw, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(raw) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("licensing: JWKS key %q is not an Ed25519 public key", k.Kid)
		}
		keys[k.Kid] = ed25519.PublicKey(raw)
	}
	if len(keys) == 0 {
		return nil, errors.New("licensing: JWKS holds no Ed25519 key")
	}
	return keys, nil
}

func newNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// unreachable marks a failure to get any answer from the server (no
// connection, a timeout, a gateway's 502/503/504 that nobody signed): the
// calls that can answer offline do.
type unreachable struct{ err error }

func (u *unreachable) Error() string { return "licensing: server unreachable: " + u.err.Error() }
func (u *unreachable) Unwrap() error { return u.err }

// answer is a verified answer.
type answer struct {
	status  int
	body    []byte
	header  http.Header
	created time.Time
}

// call sends one runtime request and verifies its answer. A 4xx/5xx is
// returned as *Error (signed, like every answer); out receives a 2xx body.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in any, bearer string, out any) (*answer, error) {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return nil, err
		}
	}
	u := *c.base
	u.Path = c.base.Path + path
	if query != nil {
		u.RawQuery = query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", c.cfg.PublicKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	sr := prepare(req, body, newNonce())
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &unreachable{err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, &unreachable{err}
	}
	v, err := verify(sr, resp, raw, c.keys)
	if err != nil {
		if resp.Header.Get("Signature") == "" && (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout) {
			return nil, &unreachable{fmt.Errorf("%s answered by something other than the server", resp.Status)}
		}
		return nil, err
	}
	a := &answer{status: resp.StatusCode, body: raw, header: resp.Header, created: v.created}
	// A genuine answer's created is trusted time.
	if err := c.st.raiseWatermark(v.created); err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Error.Code == "" {
			return nil, &Error{Status: resp.StatusCode, Code: "internal", Message: strings.TrimSpace(string(raw))}
		}
		apiErr := &Error{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
		if s := resp.Header.Get("Retry-After"); s != "" {
			var n int
			if _, err := fmt.Sscanf(s, "%d", &n); err == nil {
				apiErr.RetryAfter = time.Duration(n) * time.Second
			}
		}
		return a, apiErr
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, fmt.Errorf("licensing: answer of %s: %w", path, err)
		}
	}
	return a, nil
}

// code is the API code of err, "" when it is not an *Error.
func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// isUnreachable tells whether err means the server gave no answer.
func isUnreachable(err error) bool {
	var u *unreachable
	return errors.As(err, &u)
}

// checkClock refuses a system clock more than ClockTolerance behind the
// watermark, and returns the time to judge expiry by: the later of the two.
func (c *Client) checkClock() (time.Time, error) {
	now := c.cfg.Now()
	wm, err := c.st.watermark()
	if err != nil {
		return time.Time{}, err
	}
	if now.Before(wm.Add(-c.cfg.ClockTolerance)) {
		return time.Time{}, fmt.Errorf("%w: the clock reads %s, trusted time %s", ErrClockTampered, now.UTC().Format(time.RFC3339), wm.UTC().Format(time.RFC3339))
	}
	if wm.After(now) {
		return wm, nil
	}
	return now, nil
}

package licensing

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"licensectl.dev/sdk/go/machinefile"
)

// pair is the session pair of an answer.
type pair struct {
	AccessToken      string    `json:"access_token"`
	RefreshToken     string    `json:"refresh_token"`
	AccessExpiresAt  time.Time `json:"access_expires_at"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at"`
}

func (p pair) into(s *session) {
	s.AccessToken, s.RefreshToken, s.AccessExpiresAt, s.RefreshExpiresAt = p.AccessToken, p.RefreshToken, p.AccessExpiresAt, p.RefreshExpiresAt
}

// refreshAhead is how long before the access token's expiry the pair is
// rotated: it never expires mid-call, and a clock a little behind the
// server's still refreshes in time.
const refreshAhead = 2 * time.Minute

// Activate binds the license key (typed as the user typed it) to this device
// and opens the session that Validate, Entitled and Lease use, replacing any
// other. It checks out a machine file for offline use when the plan allows
// one. Refusals are *Error: device_limit_reached, license_expired, not_found, ….
func (c *Client) Activate(ctx context.Context, key, fingerprint string) error {
	now, err := c.checkClock()
	if err != nil {
		return err
	}
	var out struct {
		pair
	}
	a, err := c.call(ctx, http.MethodPost, "/v1/runtime/licenses/activate", nil, c.withComponents(map[string]any{
		"license_key": key, "device_fingerprint": fingerprint,
		"timestamp": now.UTC().Format(time.RFC3339Nano), "nonce": newNonce(),
	}), "", &out)
	if err != nil {
		return err
	}
	canonical := machinefile.NormalizeLicenseKey(key)
	if canonical == "" {
		canonical = strings.ToUpper(strings.TrimSpace(key))
	}
	sess := &session{Kind: "activation", LicenseKey: canonical, Fingerprint: fingerprint}
	out.pair.into(sess)
	if err := c.store(ctx, sess); err != nil {
		return err
	}
	return c.ensureMachineFile(ctx, sess, maxTime(now, a.created), true)
}

// Login signs an end-user in on this device and opens the session that
// Validate and Entitled use, replacing any other. Refusals are *Error:
// invalid_credentials, rate_limited (RetryAfter), challenge_required, ….
func (c *Client) Login(ctx context.Context, email, password, fingerprint string) error {
	now, err := c.checkClock()
	if err != nil {
		return err
	}
	var out pair
	if _, err := c.call(ctx, http.MethodPost, "/v1/runtime/auth/login", nil, c.withComponents(map[string]any{
		"email": email, "password": password, "device_fingerprint": fingerprint,
		"timestamp": now.UTC().Format(time.RFC3339Nano), "nonce": newNonce(),
	}), "", &out); err != nil {
		return err
	}
	sess := &session{Kind: "login", Fingerprint: fingerprint}
	out.into(sess)
	return c.store(ctx, sess)
}

// withComponents adds this machine's components to an activation or login
// body when the application id is configured and the machine has any.
func (c *Client) withComponents(body map[string]any) map[string]any {
	if c.cfg.ApplicationID == "" {
		return body
	}
	if cs := Components(c.cfg.ApplicationID); len(cs) > 0 {
		body["device_components"] = cs
	}
	return body
}

// store makes sess the state directory's session, dropping the machine
// file of any earlier one.
func (c *Client) store(ctx context.Context, sess *session) error {
	return c.st.locked(ctx, refreshLock, func() error {
		if err := c.st.remove(machineFile); err != nil {
			return err
		}
		return c.st.putSession(sess)
	})
}

// Logout ends the session on the server and forgets it and its machine
// file here. When the server cannot be reached the session is forgotten
// here all the same and the error says so.
func (c *Client) Logout(ctx context.Context) error {
	sess, err := c.st.session()
	if err != nil || sess == nil {
		return err
	}
	_, err = c.call(ctx, http.MethodPost, "/v1/runtime/auth/logout", nil, map[string]string{"access_token": sess.AccessToken}, "", nil)
	if errors.Is(err, ErrNotGenuine) {
		return err
	}
	if code(err) == "invalid_token" {
		err = nil // the server no longer knows it: signed out all the same
	}
	if cerr := c.st.locked(ctx, refreshLock, c.st.clear); cerr != nil {
		return cerr
	}
	return err
}

// ResetDevice unbinds fingerprint from the license key (the plan's
// self-service resets) and returns how many resets are left. Resetting this
// device's own activation forgets its session and machine file. Refusals are
// *Error: reset_limit_reached (RetryAfter with a reset window), not_found.
func (c *Client) ResetDevice(ctx context.Context, key, fingerprint string) (remaining int, err error) {
	return c.reset(ctx, key, map[string]string{"license_key": key, "device_fingerprint": fingerprint}, func(sess *session) bool {
		return sess.Fingerprint == fingerprint
	})
}

// ResetDeviceByID unbinds the device of id, as Devices lists it, from the
// license key: how a customer on a new machine frees the old one, whose
// fingerprint this machine does not know. The quota, window and refusals are
// ResetDevice's; a device not bound to this license is not_found. Resetting
// this machine's own device forgets its session and machine file.
func (c *Client) ResetDeviceByID(ctx context.Context, key, id string) (remaining int, err error) {
	return c.reset(ctx, key, map[string]string{"license_key": key, "device_id": id}, func(sess *session) bool {
		claims, err := verifiedClaims(sess.AccessToken, c.keys)
		return err == nil && claims.Dev == id
	})
}

// reset sends a self-service reset and, when it freed this device's own
// activation of the key (mine says whether the session's device is the one
// reset), forgets the session.
func (c *Client) reset(ctx context.Context, key string, body map[string]string, mine func(*session) bool) (int, error) {
	var out struct {
		Remaining int `json:"device_resets_remaining"`
	}
	if _, err := c.call(ctx, http.MethodPost, "/v1/runtime/devices/reset", nil, body, "", &out); err != nil {
		return 0, err
	}
	sess, err := c.st.session()
	if err != nil {
		return out.Remaining, err
	}
	if sess != nil && sess.Kind == "activation" && sess.LicenseKey == machinefile.NormalizeLicenseKey(key) && mine(sess) {
		if err := c.st.locked(ctx, refreshLock, c.st.clear); err != nil {
			return out.Remaining, err
		}
	}
	return out.Remaining, nil
}

// errNoSession: nothing was activated or signed in with this state
// directory (or it was cleared).
var errNoSession = errors.New("licensing: no session: activate or sign in")

// fresh is the session with an access token good for refreshAhead more,
// refreshed when needed.
func (c *Client) fresh(ctx context.Context, now time.Time) (*session, error) {
	sess, err := c.st.session()
	if err != nil || sess == nil {
		return nil, errors.Join(err, errNoSession)
	}
	if sess.AccessExpiresAt.After(now.Add(refreshAhead)) {
		return sess, nil
	}
	return c.refresh(ctx, sess.AccessToken)
}

// refresh rotates the pair whose access token is stale, one refresh at a
// time per state directory: a process that waited for the lock finds the
// pair another one stored and uses it. 409 refresh_token_rotated (another
// client spent the token without the lock) waits for the pair it stores;
// 401 refresh_token_reused or session_invalid forgets the session.
func (c *Client) refresh(ctx context.Context, stale string) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out *session
	var spent string
	err := c.st.locked(ctx, refreshLock, func() error {
		sess, err := c.st.session()
		if err != nil || sess == nil {
			return errors.Join(err, errNoSession)
		}
		if sess.AccessToken != stale {
			out = sess // another thread or process refreshed meanwhile
			return nil
		}
		var p pair
		_, err = c.call(ctx, http.MethodPost, "/v1/runtime/sessions/refresh", nil, map[string]string{"refresh_token": sess.RefreshToken}, "", &p)
		switch code(err) {
		case "":
			if err != nil {
				return err
			}
			p.into(sess)
			out = sess
			return c.st.putSession(sess)
		case "refresh_token_rotated":
			spent = sess.RefreshToken
			return err
		case "refresh_token_reused", "session_invalid":
			if cerr := c.st.clear(); cerr != nil {
				return cerr
			}
			return err
		}
		return err
	})
	if spent == "" {
		return out, err
	}
	// The server rotated this token for someone else within its grace:
	// the pair it returned is being stored; wait for it.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		sess, rerr := c.st.session()
		if rerr != nil {
			return nil, rerr
		}
		if sess != nil && sess.RefreshToken != spent {
			return sess, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, err
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

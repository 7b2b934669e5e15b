package licensing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"licensectl.dev/sdk/go/machinefile"
)

// Status is what Validate found.
type Status struct {
	// Valid tells whether the application may run.
	Valid bool
	// Reason says why not: the server's reason (license_suspended,
	// token_expired, lease_required, …, docs/runtime.md), "no_session"
	// before any activation or sign-in, or "machine_file_expired" offline.
	Reason string
	// Entitlements are the license's entitlement keys when Valid.
	Entitlements []string
	// Offline is true when the server could not be reached and the answer
	// comes from the machine file.
	Offline bool
	// ValidUntil is when to ask again at the latest: the access token's
	// expiry online, the machine file's offline.
	ValidUntil time.Time
}

// Validate asks the server whether the session may run, with a signed
// answer, and keeps a machine file checked out while online (renewed when a
// third of its life is left). When the server cannot be reached it answers
// from the machine file with Offline. ErrClockTampered when the system clock
// reads more than ClockTolerance before the latest trusted time;
// ErrNotGenuine when an answer is not the server's.
func (c *Client) Validate(ctx context.Context) (Status, error) {
	now, err := c.checkClock()
	if err != nil {
		return Status{}, err
	}
	for attempt := 0; ; attempt++ {
		sess, err := c.fresh(ctx, now)
		switch {
		case errors.Is(err, errNoSession):
			return Status{Reason: "no_session"}, nil
		case isUnreachable(err):
			return c.offline(now, err)
		case err != nil:
			if k := code(err); k == "refresh_token_reused" || k == "session_invalid" {
				return Status{Reason: k}, err
			}
			return Status{}, err
		}
		var v struct {
			Valid        bool      `json:"valid"`
			Reason       string    `json:"reason"`
			Entitlements []string  `json:"entitlements"`
			ExpiresAt    time.Time `json:"expires_at"`
		}
		_, err = c.call(ctx, http.MethodPost, "/v1/runtime/sessions/validate", nil, map[string]string{"access_token": sess.AccessToken}, "", &v)
		if isUnreachable(err) {
			return c.offline(now, err)
		}
		if err != nil {
			return Status{}, err
		}
		if !v.Valid && v.Reason == "token_expired" && attempt == 0 {
			if _, err := c.refresh(ctx, sess.AccessToken); err != nil {
				if isUnreachable(err) {
					return c.offline(now, err)
				}
				return Status{Reason: v.Reason}, err
			}
			continue
		}
		if !v.Valid {
			if v.Reason != "lease_required" {
				// The server's word overrides the file: a suspended or
				// revoked license does not run on offline.
				if err := c.st.remove(machineFile); err != nil {
					return Status{}, err
				}
			}
			return Status{Reason: v.Reason}, nil
		}
		if err := c.ensureMachineFile(ctx, sess, now, false); err != nil {
			return Status{}, err
		}
		if v.Entitlements == nil {
			v.Entitlements = []string{}
		}
		return Status{Valid: true, Entitlements: v.Entitlements, ValidUntil: v.ExpiresAt}, nil
	}
}

// offline answers from the machine file, judged at now (the later of the
// system clock and the watermark).
func (c *Client) offline(now time.Time, cause error) (Status, error) {
	sess, err := c.st.session()
	if err != nil {
		return Status{}, err
	}
	cert, err := c.st.read(machineFile)
	if err != nil {
		return Status{}, err
	}
	if sess == nil || cert == nil {
		return Status{Offline: true}, fmt.Errorf("licensing: offline and no machine file: %w", cause)
	}
	p, err := machinefile.Verify(string(cert), c.keys, sess.LicenseKey, sess.Fingerprint, now)
	if errors.Is(err, machinefile.ErrExpired) {
		return Status{Offline: true, Reason: "machine_file_expired"}, nil
	}
	if err != nil {
		return Status{Offline: true}, fmt.Errorf("licensing: offline, and the machine file is refused: %w", err)
	}
	ents := p.License.Entitlements
	if ents == nil {
		ents = []string{}
	}
	return Status{Valid: true, Offline: true, Entitlements: ents, ValidUntil: p.Meta.ExpiresAt}, nil
}

// ensureMachineFile checks a machine file out for an activation session
// when there is none, or a third of its life is left. A plan without
// offline use, or a server that cannot be reached now, leaves the file as it
// is; an answer that is not genuine is an error.
func (c *Client) ensureMachineFile(ctx context.Context, sess *session, now time.Time, force bool) error {
	if sess.Kind != "activation" {
		return nil
	}
	if !force {
		if cert, err := c.st.read(machineFile); err != nil {
			return err
		} else if cert != nil {
			p, err := machinefile.Verify(string(cert), c.keys, sess.LicenseKey, sess.Fingerprint, now)
			if err == nil && p.Meta.ExpiresAt.Sub(now) > time.Duration(p.Meta.TTL)*time.Second/3 {
				return nil
			}
		}
	}
	var out struct {
		Certificate string `json:"certificate"`
	}
	_, err := c.call(ctx, http.MethodPost, "/v1/runtime/licenses/checkout", nil, map[string]any{
		"timestamp": now.UTC().Format(time.RFC3339Nano), "nonce": newNonce(), "license_key": sess.LicenseKey,
	}, sess.AccessToken, &out)
	if errors.Is(err, ErrNotGenuine) {
		return err
	}
	if err != nil {
		return nil // offline_not_allowed, unreachable, …: online validation still stands
	}
	p, err := machinefile.Verify(out.Certificate, c.keys, sess.LicenseKey, sess.Fingerprint, now)
	if err != nil {
		return fmt.Errorf("%w: the machine file does not verify: %v", ErrNotGenuine, err)
	}
	if err := c.st.write(machineFile, []byte(out.Certificate)); err != nil {
		return err
	}
	return c.st.raiseWatermark(p.Meta.IssuedAt)
}

// Entitled tells whether the session's license grants the entitlement key,
// asking the server (a signed answer) or, offline, the machine file. On a
// license with floating seats and no seat held it returns false with an
// *Error of code lease_required: call Lease first.
func (c *Client) Entitled(ctx context.Context, key string) (bool, error) {
	now, err := c.checkClock()
	if err != nil {
		return false, err
	}
	for attempt := 0; ; attempt++ {
		sess, err := c.fresh(ctx, now)
		if isUnreachable(err) {
			return c.offlineEntitled(now, key, err)
		}
		if err != nil {
			return false, err
		}
		var out struct {
			Granted bool   `json:"granted"`
			Reason  string `json:"reason"`
		}
		_, err = c.call(ctx, http.MethodGet, "/v1/runtime/entitlements/check", url.Values{"key": {key}}, nil, sess.AccessToken, &out)
		if isUnreachable(err) {
			return c.offlineEntitled(now, key, err)
		}
		if code(err) == "session_invalid" && attempt == 0 {
			// Perhaps only the access token expired: rotate and ask again.
			if _, rerr := c.refresh(ctx, sess.AccessToken); rerr == nil {
				continue
			}
		}
		if err != nil {
			return false, err
		}
		if out.Reason == "lease_required" {
			return false, &Error{Status: http.StatusOK, Code: out.Reason, Message: "this license has floating seats: take one with Lease"}
		}
		return out.Granted, nil
	}
}

func (c *Client) offlineEntitled(now time.Time, key string, cause error) (bool, error) {
	st, err := c.offline(now, cause)
	if err != nil || !st.Valid {
		if err == nil {
			err = fmt.Errorf("licensing: offline, and the machine file expired: %w", cause)
		}
		return false, err
	}
	for _, k := range st.Entitlements {
		if k == key {
			return true, nil
		}
	}
	return false, nil
}

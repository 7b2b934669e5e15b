package licensing

import (
	"context"
	"net/http"
	"time"
)

// Device is a device bound to a license as Devices lists it. It carries no
// fingerprint: the server never shows one for a license key alone.
type Device struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Platform   string     `json:"platform"`
	LastSeenAt *time.Time `json:"last_seen_at"` // nil: not seen since it was bound
	BoundAt    time.Time  `json:"bound_at"`
	// Current marks the device of the fingerprint Devices was given: this
	// machine.
	Current bool `json:"current"`
}

// Devices lists the devices bound to the license key (typed as the user
// typed it), newest first, at most 100, so that a customer on a new machine
// can pick the old one and free it with ResetDeviceByID. fingerprint, this
// machine's (or ""), marks its device Current. Refusals are *Error:
// not_found, rate_limited (RetryAfter), ….
func (c *Client) Devices(ctx context.Context, key, fingerprint string) ([]Device, error) {
	now, err := c.checkClock()
	if err != nil {
		return nil, err
	}
	body := map[string]string{"license_key": key, "timestamp": now.UTC().Format(time.RFC3339Nano), "nonce": newNonce()}
	if fingerprint != "" {
		body["device_fingerprint"] = fingerprint
	}
	var out struct {
		Data []Device `json:"data"`
	}
	if _, err := c.call(ctx, http.MethodPost, "/v1/runtime/licenses/devices", nil, body, "", &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

package server_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/server/servertest"
)

// TestRuntimeResetWindow: a plan's device_reset_window_days makes the reset
// limit hold within a rolling window (docs/design.md §13): refused with 403
// reset_limit_reached and Retry-After until the oldest reset leaves it;
// device_resets_remaining counts within the window.
func TestRuntimeResetWindow(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 1, resets: 1, plan: map[string]any{"device_reset_window_days": 7}})
	reset := func(fp string) *servertest.Resp {
		f.activate(t, key, fp)
		return f.do(t, "POST", "/devices/reset", map[string]any{"license_key": key, "device_fingerprint": fp})
	}
	first := f.s.Clock().Now()
	if m := reset("win-a").Want(t, http.StatusOK).Map(t); m["device_resets_remaining"] != 0.0 {
		t.Fatalf("reset = %v", m)
	}
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		f.s.Clock().Advance(2 * 24 * time.Hour)
		r := reset("win-b")
		r.WantError(t, http.StatusForbidden, "reset_limit_reached")
		want := int(first.Add(7 * 24 * time.Hour).Sub(f.s.Clock().Now()).Seconds())
		if got, _ := strconv.Atoi(r.Header.Get("Retry-After")); got != want {
			t.Fatalf("Retry-After = %q, want %d", r.Header.Get("Retry-After"), want)
		}
		if d := f.lic(t, key); d.DeviceResetsRemaining != 0 {
			t.Fatalf("device_resets_remaining = %d, want 0", d.DeviceResetsRemaining)
		}
	})
	t.Run("OK", func(t *testing.T) {
		f.s.Clock().Advance(5*24*time.Hour + time.Second)
		if d := f.lic(t, key); d.DeviceResetsRemaining != 1 {
			t.Fatalf("device_resets_remaining after the window = %d, want 1", d.DeviceResetsRemaining)
		}
		reset("win-b").Want(t, http.StatusOK)
	})
}

// TestRuntimeLeases: floating seats over HTTP (docs/design.md §13): checkout,
// heartbeat, release, seats_exhausted with Retry-After, lease_required in
// validate and check, support's list and release, lease_not_found.
func TestRuntimeLeases(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 3, ents: []string{"pro"}, plan: map[string]any{"max_concurrent": 1, "lease_seconds": 60}})
	a, b := f.activate(t, key, "lease-a"), f.activate(t, key, "lease-b")
	bearer := func(s session) []string { return []string{"Authorization", "Bearer " + s.AccessToken} }
	checkout := func(s session) *servertest.Resp {
		ts, n := f.replay()
		return f.do(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}, bearer(s)...)
	}
	var lease struct {
		LeaseID       string    `json:"lease_id"`
		ExpiresAt     time.Time `json:"expires_at"`
		SeatsInUse    int       `json:"seats_in_use"`
		MaxConcurrent int       `json:"max_concurrent"`
	}
	t.Run("OK", func(t *testing.T) {
		f.wantReason(t, a.AccessToken, "lease_required")
		r := checkout(a).Want(t, http.StatusCreated)
		servertest.WantKeys(t, r.Map(t), "lease_id", "expires_at", "seats_in_use", "max_concurrent")
		r.JSON(t, &lease)
		if lease.SeatsInUse != 1 || lease.MaxConcurrent != 1 || !lease.ExpiresAt.Equal(f.s.Clock().Now().Add(time.Minute)) {
			t.Fatalf("lease = %+v", lease)
		}
		f.wantValid(t, a.AccessToken)
		f.s.Clock().Advance(30 * time.Second)
		m := f.do(t, "POST", "/leases/"+lease.LeaseID+"/heartbeat", nil, bearer(a)...).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "expires_at")
		f.wantAudit(t, "license.lease_started", 1)
	})
	t.Run("ErrSeatsExhausted", func(t *testing.T) {
		r := checkout(b)
		r.WantError(t, http.StatusConflict, "seats_exhausted")
		if got := r.Header.Get("Retry-After"); got != "60" {
			t.Fatalf("Retry-After = %q, want 60 (the heartbeat gave the lease a fresh minute)", got)
		}
		f.wantReason(t, b.AccessToken, "lease_required")
		m := f.do(t, "GET", "/entitlements/check?key=pro", nil, bearer(b)...).Want(t, http.StatusOK).Map(t)
		if m["valid"] != false || m["reason"] != "lease_required" {
			t.Fatalf("check without a lease = %v", m)
		}
		m = f.do(t, "GET", "/entitlements/check?key=pro", nil, bearer(a)...).Want(t, http.StatusOK).Map(t)
		if m["granted"] != true {
			t.Fatalf("check with a lease = %v", m)
		}
	})
	t.Run("Management", func(t *testing.T) {
		list := f.mgmt(t, "GET", "/licenses/"+f.ids[key]+"/leases", nil).Want(t, http.StatusOK).List(t)
		if len(list) != 1 || list[0]["id"] != lease.LeaseID || list[0]["fingerprint"] != "lease-a" {
			t.Fatalf("leases = %v", list)
		}
		servertest.WantKeys(t, list[0], "id", "device_id", "fingerprint", "expires_at", "created_at")
		f.mgmt(t, "DELETE", "/licenses/"+f.ids[key]+"/leases/"+lease.LeaseID, nil).Want(t, http.StatusOK)
		f.mgmt(t, "DELETE", "/licenses/"+f.ids[key]+"/leases/"+lease.LeaseID, nil).WantError(t, http.StatusNotFound, "lease_not_found")
		f.wantAudit(t, "license.lease_released", 1)
	})
	t.Run("ErrLeaseNotFound", func(t *testing.T) {
		f.do(t, "POST", "/leases/"+lease.LeaseID+"/heartbeat", nil, bearer(a)...).WantError(t, http.StatusNotFound, "lease_not_found")
		f.do(t, "DELETE", "/leases/"+lease.LeaseID, nil, bearer(a)...).WantError(t, http.StatusNotFound, "lease_not_found")
		var got struct {
			LeaseID string `json:"lease_id"`
		}
		checkout(b).Want(t, http.StatusCreated).JSON(t, &got)
		// Another device's session cannot touch b's lease.
		f.do(t, "DELETE", "/leases/"+got.LeaseID, nil, bearer(a)...).WantError(t, http.StatusNotFound, "lease_not_found")
		r := f.do(t, "DELETE", "/leases/"+got.LeaseID, nil, bearer(b)...).Want(t, http.StatusNoContent)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		ts, n := f.replay()
		f.do(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}).WantError(t, http.StatusUnauthorized, "session_invalid")
		f.do(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}, "Authorization", "Bearer nope").WantError(t, http.StatusUnauthorized, "session_invalid")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"lease 59":        {"name": "X", "lease_seconds": 59},
			"lease 86401":     {"name": "X", "lease_seconds": 86401},
			"seats > devices": {"name": "X", "max_devices": 2, "max_concurrent": 3},
			"seats -1":        {"name": "X", "max_concurrent": -1},
		} {
			t.Run(name, func(t *testing.T) {
				f.mgmt(t, "POST", "/plans", body).WantError(t, http.StatusBadRequest, "validation_failed")
			})
		}
		f.do(t, "POST", "/leases", map[string]any{"nonce": nonce()}, bearer(a)...).WantError(t, http.StatusBadRequest, "validation_failed")
	})
}

// pinned is the production JWKS of f as the keys a client pins.
func (f *rtFix) pinned(t *testing.T, query string) map[string]ed25519.PublicKey {
	t.Helper()
	out := map[string]ed25519.PublicKey{}
	for _, k := range f.jwks(t, query).Keys {
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil {
			t.Fatal(err)
		}
		out[k.Kid] = x
	}
	return out
}

// TestRuntimeMachineFile: a machine file checked out over HTTP verifies
// offline against the environment's JWKS key with the Go package, and a
// tampered, foreign-key, expired or other-device file is refused
// (docs/design.md §13).
func TestRuntimeMachineFile(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 2, ents: []string{"pro"}, plan: map[string]any{"max_offline_days": 14}})
	other := f.license(t, planOpts{plan: map[string]any{"max_offline_days": 0}})
	a := f.activate(t, key, "mf-device")
	bearer := []string{"Authorization", "Bearer " + a.AccessToken}
	checkout := func(body map[string]any, hdr ...string) *servertest.Resp {
		ts, n := f.replay()
		body["timestamp"], body["nonce"] = ts, n
		return f.do(t, "POST", "/licenses/checkout", body, hdr...)
	}
	pinned := f.pinned(t, "")
	var got struct {
		Certificate string    `json:"certificate"`
		IssuedAt    time.Time `json:"issued_at"`
		ExpiresAt   time.Time `json:"expires_at"`
		TTL         int       `json:"ttl"`
	}
	t.Run("OK", func(t *testing.T) {
		r := checkout(map[string]any{"license_key": strings.ToLower(key)}, bearer...).Want(t, http.StatusOK)
		servertest.WantKeys(t, r.Map(t), "certificate", "issued_at", "expires_at", "ttl")
		r.JSON(t, &got)
		now := f.s.Clock().Now()
		if got.TTL != 14*86400 || !got.ExpiresAt.Equal(now.Add(14*24*time.Hour)) || !strings.HasPrefix(got.Certificate, machinefile.Begin+"\n") {
			t.Fatalf("checkout = %+v", got)
		}
		for _, line := range strings.Split(strings.TrimSpace(got.Certificate), "\n") {
			if len(line) > 76 {
				t.Fatalf("armour line of %d columns", len(line))
			}
		}
		p, err := machinefile.Verify(got.Certificate, pinned, key, "mf-device", now)
		if err != nil || p.License.ID != f.ids[key] || p.Device.Fingerprint != "mf-device" || p.Application.Environment != "production" ||
			len(p.License.Entitlements) != 1 || p.License.Entitlements[0] != "pro" || p.Meta.TTL != got.TTL || p.User != nil {
			t.Fatalf("Verify = %+v, %v", p, err)
		}
		var plain struct {
			TTL         int    `json:"ttl"`
			Certificate string `json:"certificate"`
		}
		checkout(map[string]any{"encrypt": false, "ttl": 3600}, bearer...).Want(t, http.StatusOK).JSON(t, &plain)
		if p, err := machinefile.Verify(plain.Certificate, pinned, "", "mf-device", now); err != nil || plain.TTL != 3600 || !p.Meta.ExpiresAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("plain file: %+v, %v", p, err)
		}
		f.wantAudit(t, "license.checked_out", 2)
	})
	t.Run("Refused", func(t *testing.T) {
		now := f.s.Clock().Now()
		bad := tamper(t, got.Certificate)
		devKeys := f.pinned(t, "?environment=development")
		for name, c := range map[string]struct {
			cert   string
			pinned map[string]ed25519.PublicKey
			fp     string
			at     time.Time
			want   error
		}{
			"tampered":     {bad, pinned, "mf-device", now, machinefile.ErrSignature},
			"foreign key":  {got.Certificate, devKeys, "mf-device", now, machinefile.ErrUnknownKey},
			"expired":      {got.Certificate, pinned, "mf-device", got.ExpiresAt.Add(machinefile.ClockSkew + time.Second), machinefile.ErrExpired},
			"other device": {got.Certificate, pinned, "another-device", now, machinefile.ErrDecrypt},
		} {
			if _, err := machinefile.Verify(c.cert, c.pinned, key, c.fp, c.at); !errors.Is(err, c.want) {
				t.Errorf("%s: Verify = %v, want %v", name, err, c.want)
			}
		}
	})
	t.Run("ErrLicenseMismatch", func(t *testing.T) {
		checkout(map[string]any{"license_key": other}, bearer...).WantError(t, http.StatusForbidden, "license_mismatch")
	})
	t.Run("ErrOfflineNotAllowed", func(t *testing.T) {
		s := f.activate(t, other, "mf-online")
		checkout(map[string]any{"license_key": other}, "Authorization", "Bearer "+s.AccessToken).WantError(t, http.StatusForbidden, "offline_not_allowed")
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		checkout(map[string]any{"license_key": key}).WantError(t, http.StatusUnauthorized, "session_invalid")
		checkout(map[string]any{"license_key": key}, "Authorization", "Bearer nope").WantError(t, http.StatusUnauthorized, "session_invalid")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		checkout(map[string]any{}, bearer...).WantError(t, http.StatusBadRequest, "validation_failed") // encrypt needs license_key
		checkout(map[string]any{"license_key": key, "ttl": 3599}, bearer...).WantError(t, http.StatusBadRequest, "validation_failed")
		checkout(map[string]any{"license_key": key, "ttl": 14*86400 + 1}, bearer...).WantError(t, http.StatusBadRequest, "validation_failed")
		f.mgmt(t, "POST", "/plans", map[string]any{"name": "X", "max_offline_days": 366}).WantError(t, http.StatusBadRequest, "validation_failed")
	})
}

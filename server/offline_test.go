package server_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// TestRuntimeResetWindow: a plan's device_reset_window_days makes the reset
// limit hold within a rolling window (design.md §13): refused with 403
// reset_limit_reached and Retry-After until the oldest reset leaves it;
// device_resets_remaining counts within the window.
func TestRuntimeResetWindow(t *testing.T) {
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

// TestRuntimeLeases: floating seats over HTTP (design.md §13): checkout,
// heartbeat, release, seats_exhausted with Retry-After, lease_required in
// validate and check, support's list and release, lease_not_found.
func TestRuntimeLeases(t *testing.T) {
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

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

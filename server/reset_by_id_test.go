package server_test

import (
	"net/http"
	"strconv"
	"testing"
)

// TestRuntimeResetByID: POST /v1/runtime/devices/reset names the device by
// device_id as well as by device_fingerprint (docs/design.md §17), exactly
// one of them, with the quota, window and Retry-After of a reset by
// fingerprint; another licence's device is 404.
func TestRuntimeResetByID(t *testing.T) {
	f := newRT(t)
	keys := f.licenses(t, 2, planOpts{maxDevices: 2, resets: 1, plan: map[string]any{"device_reset_window_days": 7}})
	mine, theirs := keys[0], keys[1]
	f.activate(t, mine, "byid-old")
	f.activate(t, mine, "byid-new")
	f.activate(t, theirs, "byid-other")
	old, nw, other := f.device(t, "byid-old"), f.device(t, "byid-new"), f.device(t, "byid-other")
	byID := func(key, id string) map[string]any { return map[string]any{"license_key": key, "device_id": id} }
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"license_key": mine},
			{"license_key": mine, "device_id": old.ID, "device_fingerprint": "byid-old"},
			{"license_key": mine, "device_id": "pc-1"},
		} {
			f.do(t, "POST", "/devices/reset", body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.do(t, "POST", "/devices/reset", byID(mine, other.ID)).WantError(t, http.StatusNotFound, "not_found")
		if d := f.lic(t, theirs); d.DeviceResetsRemaining != 1 {
			t.Fatalf("the other licence's resets remaining = %d, want 1", d.DeviceResetsRemaining)
		}
	})
	t.Run("OK", func(t *testing.T) {
		m := f.do(t, "POST", "/devices/reset", byID(mine, old.ID)).Want(t, http.StatusOK).Map(t)
		if m["success"] != true || m["device_resets_remaining"] != 0.0 {
			t.Fatalf("reset = %v", m)
		}
		f.wantAudit(t, "license.device_reset", 1)
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		r := f.do(t, "POST", "/devices/reset", byID(mine, nw.ID))
		r.WantError(t, http.StatusForbidden, "reset_limit_reached")
		if got, _ := strconv.Atoi(r.Header.Get("Retry-After")); got != 7*24*3600 {
			t.Fatalf("Retry-After = %q, want %d", r.Header.Get("Retry-After"), 7*24*3600)
		}
	})
}

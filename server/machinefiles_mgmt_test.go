package server_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/server/api"
)

// TestManagementMachineFile: the air-gapped machine file (docs/design.md §13).
// The management endpoint binds the device as an activation would (a seat
// taken, the license active, device_limit_reached when full) and returns a
// file that verifies offline with the environment's JWKS key for that
// fingerprint only.
func TestManagementMachineFile(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 1, ents: []string{"pro"}, plan: map[string]any{"max_offline_days": 365}})
	path := "/licenses/" + f.ids[key] + "/machine-files"
	pinned := f.pinned(t, "")
	var got api.LicenseMachineFileIssued
	t.Run("OK", func(t *testing.T) {
		r := f.mgmt(t, "POST", path, map[string]any{"fingerprint": "air-gapped-1"}).Want(t, http.StatusOK)
		r.JSON(t, &got)
		now := f.s.Clock().Now()
		if got.TTL != 365*86400 || !got.ExpiresAt.Equal(now.Add(365*24*time.Hour)) || !got.IssuedAt.Equal(now) || got.DeviceID == "" {
			t.Fatalf("machine file = %+v", got)
		}
		p, err := machinefile.Verify(got.Certificate, pinned, key, "air-gapped-1", now)
		if err != nil || p.License.ID != f.ids[key] || p.License.Status != "active" || p.Device.ID != got.DeviceID ||
			len(p.License.Entitlements) != 1 || p.License.Entitlements[0] != "pro" || p.Application.Environment != "production" {
			t.Fatalf("Verify = %+v, %v", p, err)
		}
		if _, err := machinefile.Verify(got.Certificate, pinned, key, "air-gapped-2", now); !errors.Is(err, machinefile.ErrDecrypt) {
			t.Fatalf("Verify(another fingerprint) = %v, want %v", err, machinefile.ErrDecrypt)
		}
		d := f.lic(t, key)
		if d.Status != "active" || d.DevicesCount != 1 || len(d.Devices) != 1 || d.Devices[0].Fingerprint != "air-gapped-1" {
			t.Fatalf("license after the checkout = %+v", d)
		}
		f.wantAudit(t, "license.checked_out", 1)
		// The same device again, plain and shorter: its seat is already taken.
		var plain api.LicenseMachineFileIssued
		f.mgmt(t, "POST", path, map[string]any{"fingerprint": "air-gapped-1", "ttl_days": 7, "encrypt": false}).Want(t, http.StatusOK).JSON(t, &plain)
		if p, err := machinefile.Verify(plain.Certificate, pinned, "", "air-gapped-1", now); err != nil || plain.TTL != 7*86400 || !p.Meta.ExpiresAt.Equal(now.Add(7*24*time.Hour)) {
			t.Fatalf("plain file: %+v, %v (ttl %d)", p, err, plain.TTL)
		}
		if _, err := machinefile.Verify(plain.Certificate, pinned, "", "air-gapped-2", now); !errors.Is(err, machinefile.ErrOtherDevice) {
			t.Fatalf("Verify(plain, another fingerprint) = %v, want %v", err, machinefile.ErrOtherDevice)
		}
	})
	t.Run("ErrDeviceLimitReached", func(t *testing.T) {
		f.mgmt(t, "POST", path, map[string]any{"fingerprint": "air-gapped-2"}).WantError(t, http.StatusForbidden, "device_limit_reached")
		f.activate403(t, key, "air-gapped-2")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no fingerprint": {},
			"ttl_days 0":     {"fingerprint": "air-gapped-1", "ttl_days": 0},
			"ttl_days 366":   {"fingerprint": "air-gapped-1", "ttl_days": 366},
		} {
			t.Run(name, func(t *testing.T) {
				f.mgmt(t, "POST", path, body).WantError(t, http.StatusBadRequest, "validation_failed")
			})
		}
		short := f.license(t, planOpts{plan: map[string]any{"max_offline_days": 5}})
		f.mgmt(t, "POST", "/licenses/"+f.ids[short]+"/machine-files", map[string]any{"fingerprint": "x", "ttl_days": 6}).WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrOfflineNotAllowed", func(t *testing.T) {
		none := f.license(t, planOpts{plan: map[string]any{"max_offline_days": 0}})
		f.mgmt(t, "POST", "/licenses/"+f.ids[none]+"/machine-files", map[string]any{"fingerprint": "x"}).WantError(t, http.StatusForbidden, "offline_not_allowed")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.mgmt(t, "POST", "/licenses/0190f0e0-0000-7000-8000-000000000000/machine-files", map[string]any{"fingerprint": "x"}).WantError(t, http.StatusNotFound, "not_found")
	})
}

// activate403 fails unless activating key on fp is refused with
// device_limit_reached: the air-gapped device holds the seat.
func (f *rtFix) activate403(t *testing.T, key, fp string) {
	t.Helper()
	f.do(t, "POST", "/licenses/activate", f.activateBody(key, fp)).WantError(t, http.StatusForbidden, "device_limit_reached")
}

package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// componentsBody is a device_components list of machine_id, disk_serial,
// mac, … with these hashes.
func componentsBody(hashes ...string) []map[string]any {
	names := []string{"machine_id", "disk_serial", "mac", "os_install"}
	out := make([]map[string]any, len(hashes))
	for i, h := range hashes {
		out[i] = map[string]any{"name": names[i], "hash": h}
	}
	return out
}

// TestRuntimeDeviceComponents: activation and login take device_components
// (docs/design.md §17); a malformed list is 400 validation_failed naming
// the offending entry's field, and changes nothing.
func TestRuntimeDeviceComponents(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 2})
	f.register(t, "parts@runtime.test")
	many := make([]map[string]any, 17)
	for i := range many {
		many[i] = map[string]any{"name": fmt.Sprintf("c%d", i), "hash": "h"}
	}
	for _, tc := range []struct {
		name  string
		list  any
		field string
	}{
		{"too many", many, "device_components"},
		{"empty name", []map[string]any{{"name": "", "hash": "h"}}, "device_components[0].name"},
		{"long name", []map[string]any{{"name": strings.Repeat("n", 33), "hash": "h"}}, "device_components[0].name"},
		{"no hash", []map[string]any{{"name": "a", "hash": "h"}, {"name": "b"}}, "device_components[1].hash"},
		{"long hash", []map[string]any{{"name": "a", "hash": strings.Repeat("h", 129)}}, "device_components[0].hash"},
		{"control character", []map[string]any{{"name": "a\x01", "hash": "h"}}, "device_components[0].name"},
		{"duplicate name", []map[string]any{{"name": "a", "hash": "h"}, {"name": "a", "hash": "i"}}, "device_components[1].name"},
	} {
		t.Run("ErrValidationFailed/"+tc.name, func(t *testing.T) {
			for path, body := range map[string]map[string]any{
				"/licenses/activate": f.activateBody(key, "parts-pc"),
				"/auth/login":        f.loginBody("parts@runtime.test", servertest.Password, "parts-pc"),
			} {
				body["device_components"] = tc.list
				r := f.do(t, "POST", path, body)
				r.WantError(t, http.StatusBadRequest, "validation_failed")
				if !strings.Contains(string(r.Body), tc.field) {
					t.Fatalf("%s: error %s does not name %s", path, r.Body, tc.field)
				}
			}
		})
	}
	var page struct {
		Total int `json:"total"`
	}
	f.mgmt(t, "GET", "/devices", nil).Want(t, http.StatusOK).JSON(t, &page)
	if page.Total != 0 {
		t.Fatalf("refused requests left %d devices", page.Total)
	}
	t.Run("OK", func(t *testing.T) {
		body := f.activateBody(key, "parts-pc")
		body["device_components"] = componentsBody("m", "d", "n")
		f.do(t, "POST", "/licenses/activate", body).Want(t, http.StatusOK)
		body = f.activateBody(key, "parts-pc-2")
		body["device_components"] = []any{}
		f.do(t, "POST", "/licenses/activate", body).Want(t, http.StatusOK)
	})
}

// TestRuntimeRebind: a new fingerprint arriving with most of a bound
// device's components gets the normal activation answer through the real
// listener, the session of the old fingerprint no longer validates, no
// seat is taken, and the device.rebound event reaches a webhook receiver
// with the device and the previous fingerprint; a plan with rebind off
// refuses the same activation with device_limit_reached.
func TestRuntimeRebind(t *testing.T) {
	f := newRT(t, local)
	rc := newReceiver(t)
	register(t, f, rc, "device.rebound")
	key := f.license(t, planOpts{maxDevices: 1, resets: 1})
	activate := func(key, fp string, hashes ...string) *servertest.Resp {
		t.Helper()
		body := f.activateBody(key, fp)
		body["device_components"] = componentsBody(hashes...)
		return f.do(t, "POST", "/licenses/activate", body)
	}
	var old, nw session
	activate(key, "rebind-old", "m", "d", "n").Want(t, http.StatusOK).JSON(t, &old)
	dev := f.device(t, "rebind-old")
	activate(key, "rebind-new", "m", "d", "other").Want(t, http.StatusOK).JSON(t, &nw)
	if nw.AccessToken == "" || nw.RefreshToken == "" || nw.License.Status != "active" {
		t.Fatalf("re-bind answer = %+v; want the activation answer", nw)
	}
	f.wantValid(t, nw.AccessToken)
	f.wantReason(t, old.AccessToken, "session_revoked")
	if d := f.device(t, "rebind-new"); d.ID != dev.ID {
		t.Fatalf("the new fingerprint names device %s, want the re-bound %s", d.ID, dev.ID)
	}
	if l := f.lic(t, key); len(l.Devices) != 1 || l.DeviceResetsRemaining != 1 {
		t.Fatalf("license after the re-bind: %d devices, %d resets left; want 1 and 1", len(l.Devices), l.DeviceResetsRemaining)
	}
	d := rc.next(t, "device.rebound")
	got, _ := d.Data["device"].(map[string]any)
	if got["id"] != dev.ID || got["fingerprint"] != "rebind-new" || d.Data["previous_fingerprint"] != "rebind-old" || d.Data["license_id"] != f.ids[key] {
		t.Fatalf("device.rebound data = %v", d.Data)
	}
	f.wantAudit(t, "device.rebound", 1)

	off := f.license(t, planOpts{maxDevices: 1, plan: map[string]any{"rebind": "off"}})
	activate(off, "rebind-off-old", "m2", "d2", "n2").Want(t, http.StatusOK)
	activate(off, "rebind-off-new", "m2", "d2", "n2").WantError(t, http.StatusForbidden, "device_limit_reached")
	rc.none(t, "device.rebound", 300*time.Millisecond)
}

// TestRuntimeRebindAfterLogin: the client library's flow, a login on the
// changed fingerprint before the activation, re-binds through the real
// listener: the login created the new fingerprint's device, which takes
// the binding of the device its components match; no seat is taken, the
// old device's session of the licence ends, the login's session stays, and
// device.rebound reaches a receiver naming both devices.
func TestRuntimeRebindAfterLogin(t *testing.T) {
	f := newRT(t, local)
	rc := newReceiver(t)
	register(t, f, rc, "device.rebound")
	key := f.license(t, planOpts{maxDevices: 1, resets: 1})
	f.register(t, "moved@runtime.test")
	flow := func(fp string, hashes ...string) (login, act session) {
		t.Helper()
		body := f.loginBody("moved@runtime.test", servertest.Password, fp)
		body["device_components"] = componentsBody(hashes...)
		f.do(t, "POST", "/auth/login", body).Want(t, http.StatusOK).JSON(t, &login)
		body = f.activateBody(key, fp)
		body["device_components"] = componentsBody(hashes...)
		f.do(t, "POST", "/licenses/activate", body, "Authorization", "Bearer "+login.AccessToken).Want(t, http.StatusOK).JSON(t, &act)
		return login, act
	}
	_, old := flow("moved-old", "m", "d", "n")
	oldDev := f.device(t, "moved-old")
	login, nw := flow("moved-new", "m", "d", "other")
	newDev := f.device(t, "moved-new")
	if newDev.ID == oldDev.ID || nw.License.Status != "active" {
		t.Fatalf("devices %s and %s, answer %+v; want two devices and the activation answer", oldDev.ID, newDev.ID, nw)
	}
	f.wantValid(t, nw.AccessToken)
	f.wantValid(t, login.AccessToken)
	f.wantReason(t, old.AccessToken, "session_revoked")
	if l := f.lic(t, key); len(l.Devices) != 1 || l.Devices[0].ID != newDev.ID || l.DeviceResetsRemaining != 1 {
		t.Fatalf("license after the re-bind: devices %+v, %d resets left; want %s alone and 1", l.Devices, l.DeviceResetsRemaining, newDev.ID)
	}
	d := rc.next(t, "device.rebound")
	got, _ := d.Data["device"].(map[string]any)
	if got["id"] != newDev.ID || got["fingerprint"] != "moved-new" || d.Data["previous_fingerprint"] != "moved-old" ||
		d.Data["previous_device_id"] != oldDev.ID || d.Data["license_id"] != f.ids[key] {
		t.Fatalf("device.rebound data = %v", d.Data)
	}
}

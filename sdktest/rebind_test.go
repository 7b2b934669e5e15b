package sdktest

import (
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"licensectl.dev/sdk/go"
)

// TestRebindOnComponents: a client configured with the application id
// sends this machine's components; when the fingerprint the application
// computes changes but the machine does not, the activation keeps the
// seat (the server re-binds the device) instead of answering
// device_limit_reached, and the re-bound device answers to the new
// fingerprint. A client that sends no components gets the refusal.
func TestRebindOnComponents(t *testing.T) {
	if n := len(licensing.Components("any")); n < 2 {
		t.Fatalf("this machine yields %d components (machine id, disk serial, MAC, OS install id); re-binding needs two", n)
	}
	v := newVendor(t)
	key, id := v.license(t, planSpec{"max_devices": 1})
	base := v.base(t)
	newClient := func(appID string) *licensing.Client {
		c, err := licensing.New(licensing.Config{BaseURL: base, PublicKey: v.pub, JWKS: v.jwks, ApplicationID: appID,
			StateDir: filepath.Join(t.TempDir(), "state"), HTTPClient: &http.Client{Timeout: 10 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, c2 := newClient(v.appID), ctx(t)
	if err := c.Activate(c2, key, "fp-before-bios-update"); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	if err := c.Activate(c2, key, "fp-after-bios-update"); err != nil {
		t.Fatalf("Activate under a new fingerprint: %v; want a re-bind", err)
	}
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("Validate after the re-bind: %+v, %v", st, err)
	}
	lic := v.mgmt(t, http.MethodGet, "/v1/mgmt/applications/"+v.appID+"/licenses/"+id, nil, http.StatusOK)
	devs, _ := lic["devices"].([]any)
	if len(devs) != 1 || devs[0].(map[string]any)["fingerprint"] != "fp-after-bios-update" {
		t.Fatalf("license devices = %v; want the one device under its new fingerprint", lic["devices"])
	}
	var apiErr *licensing.Error
	if err := newClient("").Activate(c2, key, "fp-another-machine"); !errors.As(err, &apiErr) || apiErr.Code != "device_limit_reached" {
		t.Fatalf("Activate without components = %v; want device_limit_reached", err)
	}
}

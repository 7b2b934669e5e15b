package sdktest

import (
	"errors"
	"net/http"
	"testing"

	"licensectl.dev/sdk/go"
)

// TestDevicesAndResetByID: a customer on a new machine, refused a seat,
// lists the licence's devices (the old one, not current), frees it by id and
// activates; the old machine's session no longer validates. Freeing this
// machine's own device by id forgets its session, as a reset by fingerprint
// does. Against a real server, every answer verified.
func TestDevicesAndResetByID(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, planSpec{"max_devices": 1, "device_reset_limit": 2})
	base := v.base(t)
	c2 := ctx(t)
	old, nw := v.client(t, base, "", nil), v.client(t, base, "", nil)
	if err := old.Activate(c2, key, "old-machine"); err != nil {
		t.Fatal(err)
	}
	var apiErr *licensing.Error
	if err := nw.Activate(c2, key, "new-machine"); !errors.As(err, &apiErr) || apiErr.Code != "device_limit_reached" {
		t.Fatalf("Activate on a full licence: %v", err)
	}
	devs, err := nw.Devices(c2, key, "new-machine")
	if err != nil || len(devs) != 1 || devs[0].Current || devs[0].ID == "" || devs[0].BoundAt.IsZero() {
		t.Fatalf("Devices from the new machine = %+v, %v; want the old one, not current", devs, err)
	}
	oldID := devs[0].ID
	if mine, err := old.Devices(c2, key, "old-machine"); err != nil || len(mine) != 1 || !mine[0].Current || mine[0].ID != oldID {
		t.Fatalf("Devices from the old machine = %+v, %v; want it current", mine, err)
	}
	if _, err := nw.ResetDeviceByID(c2, key, "01a25042-a75e-7dd7-aabc-22793208f9ed"); !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound || apiErr.Code != "not_found" {
		t.Fatalf("ResetDeviceByID(unknown) = %v; want 404 not_found", err)
	}
	if n, err := nw.ResetDeviceByID(c2, key, oldID); err != nil || n != 1 {
		t.Fatalf("ResetDeviceByID(old) = %d, %v; want 1 left", n, err)
	}
	if err := nw.Activate(c2, key, "new-machine"); err != nil {
		t.Fatalf("Activate after freeing the old machine: %v", err)
	}
	if st, err := old.Validate(c2); err != nil || st.Valid {
		t.Fatalf("the old machine after its reset: %+v, %v; want not valid", st, err)
	}
	devs, err = nw.Devices(c2, key, "new-machine")
	if err != nil || len(devs) != 1 || !devs[0].Current || devs[0].ID == oldID {
		t.Fatalf("Devices after the move = %+v, %v; want only the new machine, current", devs, err)
	}
	if n, err := nw.ResetDeviceByID(c2, key, devs[0].ID); err != nil || n != 0 {
		t.Fatalf("ResetDeviceByID(this machine) = %d, %v; want 0 left", n, err)
	}
	if st, err := nw.Validate(c2); err != nil || st.Reason != "no_session" {
		t.Fatalf("after resetting this machine by id: %+v, %v; want no_session", st, err)
	}
}

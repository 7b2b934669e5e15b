package storetest

import (
	"slices"
	"testing"

	"licensectl/store"
)

// testResetByID: a customer on a new machine frees the old one by the id the
// devices list shows (docs/design.md §17). The reset spends the same quota
// as one by fingerprint, a device of another licence is not_found and left
// bound, and naming the device both ways or neither is refused.
func testResetByID(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("By id"), MaxDevices: ptr(2), DeviceResetLimit: ptr(1), DeviceResetWindowDays: ptr(30)}, 2)
	mine, theirs := gen[0], gen[1]
	old := f.activate(t, mine.Key, "byid-old")
	f.activation(t, mine.Key, "byid-new")
	other := f.activate(t, theirs.Key, "byid-other")
	reset := func(key, id string) (int, error) {
		return f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: key, DeviceID: id})
	}
	boundTo := func(fp string) []string {
		t.Helper()
		p, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{Fingerprint: fp})
		if err != nil || p.Total != 1 {
			t.Fatalf("ListDevices(%s) = %+v, %v", fp, p, err)
		}
		return p.Data[0].LicenseIDs
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := reset(mine.Key, other.ID)
		wantCode(t, "ResetDevice(another licence's device)", err, store.ECodeNotFound)
		if !slices.Contains(boundTo("byid-other"), theirs.ID) {
			t.Fatalf("the other licence's device lost its binding")
		}
		_, err = reset(mine.Key, "00000000-0000-4000-8000-000000000000")
		wantCode(t, "ResetDevice(unknown id)", err, store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, in := range []store.DeviceResetInput{
			{LicenseKey: mine.Key},
			{LicenseKey: mine.Key, Fingerprint: "byid-old", DeviceID: old.ID},
			{LicenseKey: mine.Key, DeviceID: "not-a-uuid"},
		} {
			_, err := f.runtime().ResetDevice(f.ctx, f.client(""), in)
			wantCode(t, "ResetDevice(bad device naming)", err, store.ECodeValidation)
		}
		if !slices.Contains(boundTo("byid-old"), mine.ID) {
			t.Fatalf("a refused reset unbound the device")
		}
	})
	t.Run("OK", func(t *testing.T) {
		n, err := reset(mine.Key, old.ID)
		if err != nil || n != 0 {
			t.Fatalf("ResetDevice(by id) = %d, %v; want 0 left", n, err)
		}
		if slices.Contains(boundTo("byid-old"), mine.ID) {
			t.Fatalf("the reset device is still bound")
		}
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		nw := f.activate(t, mine.Key, "byid-new")
		_, err := reset(mine.Key, nw.ID)
		wantCode(t, "ResetDevice(quota spent)", err, store.ECodeResetLimit)
		if e := store.AsError(err); e == nil || e.RetryAfter <= 0 {
			t.Fatalf("RetryAfter of %v = %+v, want the seconds until the reset leaves the window", err, e)
		}
		if !slices.Contains(boundTo("byid-new"), mine.ID) {
			t.Fatalf("a refused reset unbound the device")
		}
	})
}

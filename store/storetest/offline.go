package storetest

import (
	"testing"
	"time"

	"licensectl/store"
)

// testResetWindow: with device_reset_window_days the reset limit holds
// within any rolling window of that many days (design.md §13): the refusal
// names when the oldest reset leaves the window, and
// device_resets_remaining counts only the resets inside it.
func testResetWindow(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Windowed"), MaxDevices: ptr(1), DeviceResetLimit: ptr(2), DeviceResetWindowDays: ptr(30)}, 1)
	key, id := gen[0].Key, gen[0].ID
	reset := func(fp string) (int, error) {
		f.activation(t, key, fp)
		return f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: key, Fingerprint: fp})
	}
	left := func() int {
		t.Helper()
		d, err := f.db.FindLicense(f.ctx, f.scope(store.EnvProduction), id)
		if err != nil {
			t.Fatalf("FindLicense: %v", err)
		}
		return d.DeviceResetsRemaining
	}
	first := f.clock.Now()
	if n, err := reset("win-a"); err != nil || n != 1 {
		t.Fatalf("ResetDevice = %d, %v; want 1 left", n, err)
	}
	f.clock.Advance(10 * 24 * time.Hour)
	if n, err := reset("win-b"); err != nil || n != 0 {
		t.Fatalf("ResetDevice = %d, %v; want 0 left", n, err)
	}
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		f.clock.Advance(5 * 24 * time.Hour)
		_, err := reset("win-c")
		wantCode(t, "ResetDevice(window full)", err, store.ECodeResetLimit)
		want := int(first.Add(30*24*time.Hour).Sub(f.clock.Now()) / time.Second)
		if e := store.AsError(err); e == nil || e.RetryAfter != want {
			t.Fatalf("RetryAfter of %v = %+v, want %d s (until the first reset leaves the window)", err, e, want)
		}
		if n := left(); n != 0 {
			t.Fatalf("device_resets_remaining = %d, want 0", n)
		}
	})
	t.Run("OK", func(t *testing.T) {
		// The first reset leaves the window: one is free again, and only one.
		f.clock.Set(first.Add(30*24*time.Hour + time.Second))
		if n := left(); n != 1 {
			t.Fatalf("device_resets_remaining once the first reset left the window = %d, want 1", n)
		}
		if n, err := reset("win-c"); err != nil || n != 0 {
			t.Fatalf("ResetDevice = %d, %v; want 0 left", n, err)
		}
		_, err := reset("win-d")
		wantCode(t, "ResetDevice(window full again)", err, store.ECodeResetLimit)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, days := range []int{-1, store.MaxResetWindowDays + 1} {
			_, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Bad window"), DeviceResetWindowDays: ptr(days)})
			wantCode(t, "CreatePlan(device_reset_window_days)", err, store.ECodeValidation)
		}
		p, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Longest window"), DeviceResetWindowDays: ptr(store.MaxResetWindowDays)})
		if err != nil || p.DeviceResetWindowDays != store.MaxResetWindowDays {
			t.Fatalf("CreatePlan = %+v, %v", p, err)
		}
		if p, err = f.db.FindPlan(f.ctx, f.ref(), p.ID); err != nil || p.DeviceResetWindowDays != store.MaxResetWindowDays {
			t.Fatalf("FindPlan = %+v, %v", p, err)
		}
	})
}

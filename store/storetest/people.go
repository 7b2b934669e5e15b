package storetest

import (
	"slices"
	"testing"

	"licensectl/store"
)

// activate binds a license to a device with this fingerprint through the
// runtime API of the store behind the implementation, as a desktop client
// would, and returns the device as Admin lists it.
func (f *fixture) activate(t *testing.T, key, fingerprint string) *store.Device {
	t.Helper()
	f.activation(t, key, fingerprint)
	p, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{Fingerprint: fingerprint})
	if err != nil || p.Total != 1 {
		t.Fatalf("ListDevices(fingerprint) = %+v, %v", p, err)
	}
	return p.Data[0]
}

// testEndUsers: statuses and roles of an end-user registered outside Admin.
func testEndUsers(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	u, err := f.be.RegisterEndUser(f.ctx, sc, "Buyer@Conformance.test", Password)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OKList", func(t *testing.T) {
		p, err := f.db.ListEndUsers(f.ctx, sc, store.StatusFilter{Email: "buyer@conformance.test"})
		if err != nil || p.Total != 1 || p.Data[0].ID != u.ID {
			t.Fatalf("ListEndUsers(email) = %+v, %v", p, err)
		}
		none, err := f.db.ListEndUsers(f.ctx, sc, store.StatusFilter{Status: store.UserBanned})
		if err != nil || none.Total != 0 {
			t.Fatalf("ListEndUsers(banned) = %+v, %v", none, err)
		}
	})
	t.Run("OKStatus", func(t *testing.T) {
		for _, to := range []string{store.UserBanned, store.UserDisabled, store.UserActive} {
			got, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, to)
			if err != nil || got.Status != to {
				t.Fatalf("SetEndUserStatus(%s) = %+v, %v", to, got, err)
			}
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, "bogus")
		wantCode(t, "SetEndUserStatus(bogus)", err, store.ECodeValidation)
		_, err = f.db.AddEndUserRole(f.ctx, f.org.ID, u.ID, "Not A Role!")
		wantCode(t, "AddEndUserRole(bad name)", err, store.ECodeValidation)
	})
	t.Run("OKRoles", func(t *testing.T) {
		for range 2 { // adding twice is a no-op
			r, err := f.db.AddEndUserRole(f.ctx, f.org.ID, u.ID, "beta")
			if err != nil || r.UserID != u.ID || !slices.Equal(r.Roles, []string{"beta"}) {
				t.Fatalf("AddEndUserRole = %+v, %v", r, err)
			}
		}
		for range 2 {
			r, err := f.db.RemoveEndUserRole(f.ctx, f.org.ID, u.ID, "beta")
			if err != nil || len(r.Roles) != 0 {
				t.Fatalf("RemoveEndUserRole = %+v, %v", r, err)
			}
		}
		_, err := f.db.RemoveEndUserRole(f.ctx, f.org.ID, store.NewID(), "beta")
		wantCode(t, "RemoveEndUserRole(unknown)", err, store.ECodeNotFound)
		other, _ := seedOrg(t, f.db, f.ctx)
		_, err = f.db.AddEndUserRole(f.ctx, other.ID, u.ID, "beta")
		wantCode(t, "AddEndUserRole(another organization's user)", err, store.ECodeNotFound)
	})
}

// testDevices: a device activated by a desktop client is listed, found by
// fingerprint, blocked and unblocked, and unbound from its license.
func testDevices(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Seats"), MaxDevices: ptr(2)}, 1)
	dev := f.activate(t, gen[0].Key, "conformance-device-1")
	t.Run("OKListAndFind", func(t *testing.T) {
		if dev.Status != store.DeviceActive || !slices.Contains(dev.LicenseIDs, gen[0].ID) {
			t.Fatalf("device = %+v", dev)
		}
		p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{})
		if err != nil || p.Total != 1 {
			t.Fatalf("ListDevices = %+v, %v", p, err)
		}
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || l.Key != gen[0].Key || len(l.Devices) != 1 || l.Devices[0].ID != dev.ID || l.Status != store.LicenseActive {
			t.Fatalf("FindLicense = %+v, %v", l, err)
		}
	})
	t.Run("OKStatus", func(t *testing.T) {
		for _, to := range []string{store.DeviceBlocked, store.DeviceActive} {
			d, err := f.db.SetDeviceStatus(f.ctx, sc, dev.ID, to)
			if err != nil || d.Status != to {
				t.Fatalf("SetDeviceStatus(%s) = %+v, %v", to, d, err)
			}
		}
		_, err := f.db.SetDeviceStatus(f.ctx, sc, dev.ID, "bogus")
		wantCode(t, "SetDeviceStatus(bogus)", err, store.ECodeValidation)
		_, err = f.db.SetDeviceStatus(f.ctx, f.scope(store.EnvDevelopment), dev.ID, store.DeviceBlocked)
		wantCode(t, "SetDeviceStatus(other environment)", err, store.ECodeNotFound)
	})
	t.Run("OKResetDevice", func(t *testing.T) {
		if err := f.db.ResetLicenseDevice(f.ctx, sc, gen[0].ID, dev.ID); err != nil {
			t.Fatal(err)
		}
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || len(l.Devices) != 0 {
			t.Fatalf("license after the reset = %+v, %v", l, err)
		}
		wantCode(t, "ResetLicenseDevice(no longer bound)", f.db.ResetLicenseDevice(f.ctx, sc, gen[0].ID, dev.ID), store.ECodeNotFound)
		wantCode(t, "ResetLicenseDevice(unknown license)", f.db.ResetLicenseDevice(f.ctx, sc, store.NewID(), dev.ID), store.ECodeNotFound)
		reset, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLicenseDeviceReset})
		if err != nil || reset.Total != 1 {
			t.Fatalf("audit of the reset = %+v, %v", reset, err)
		}
	})
}

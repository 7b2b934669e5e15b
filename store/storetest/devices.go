package storetest

import (
	"fmt"
	"slices"
	"testing"

	"licensectl/store"
)

// testLicenseDevices: the devices bound to a license are an index of it,
// not a list inside it (docs/design.md §6, §7). The detail carries their count and
// the first page, newest first; the device list by license_id pages them
// all; resets unbind from it and free a seat.
func testLicenseDevices(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	const n = store.LicenseDetailDevices + 5
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Site"), MaxDevices: ptr(n), DeviceResetLimit: ptr(1)}, 2)
	lic := gen[0]
	var devs []string // oldest first
	for i := range n {
		devs = append(devs, f.activate(t, lic.Key, fmt.Sprintf("site-%02d", i)).ID)
	}
	// A device bound to the other license too is counted once on each.
	f.activation(t, gen[1].Key, "site-00")
	newestFirst := slices.Clone(devs)
	slices.Reverse(newestFirst)
	pageIDs := func(t *testing.T, p *store.Page[*store.Device]) []string {
		t.Helper()
		var out []string
		for _, d := range p.Data {
			out = append(out, d.ID)
		}
		return out
	}
	t.Run("OKDetail", func(t *testing.T) {
		d, err := f.db.FindLicense(f.ctx, sc, lic.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range d.Devices {
			if x.BoundAt.IsZero() || x.Status != store.DeviceActive {
				t.Errorf("detail device %+v", x)
			}
			got = append(got, x.ID)
		}
		if d.DevicesCount != n || !slices.Equal(got, newestFirst[:store.LicenseDetailDevices]) {
			t.Fatalf("detail: devices_count %d, devices %q; want %d, the newest %d", d.DevicesCount, got, n, store.LicenseDetailDevices)
		}
		list, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{})
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, l := range list.Data {
			counts[l.ID] = l.DevicesCount
		}
		if counts[lic.ID] != n || counts[gen[1].ID] != 1 {
			t.Fatalf("list devices_count = %v; want %d and 1", counts, n)
		}
	})
	t.Run("OKListByLicense", func(t *testing.T) {
		var all []string
		for page := 1; page <= 3; page++ {
			p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{LicenseID: lic.ID, PageRequest: store.PageRequest{Page: page, PerPage: 10}})
			if err != nil || p.Total != n || p.Page != page || p.PerPage != 10 {
				t.Fatalf("page %d = %+v, %v", page, p, err)
			}
			all = append(all, pageIDs(t, p)...)
		}
		if !slices.Equal(all, newestFirst) {
			t.Fatalf("pages = %q, want %q", all, newestFirst)
		}
		other, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{LicenseID: gen[1].ID})
		if err != nil || other.Total != 1 || !slices.Equal(pageIDs(t, other), devs[:1]) {
			t.Fatalf("the other license's devices = %+v, %v", other, err)
		}
	})
	t.Run("ErrDeviceLimitReached", func(t *testing.T) {
		wantCode(t, "Activate(one device too many)", f.activateErr(lic.Key, "site-extra"), store.ECodeDeviceLimit)
	})
	t.Run("OKResetUnbinds", func(t *testing.T) {
		if err := f.db.ResetLicenseDevice(f.ctx, sc, lic.ID, devs[3]); err != nil {
			t.Fatal(err)
		}
		if _, err := f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: lic.Key, Fingerprint: "site-00"}); err != nil {
			t.Fatal(err)
		}
		want := slices.DeleteFunc(slices.Clone(newestFirst), func(id string) bool { return id == devs[3] || id == devs[0] })
		p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{LicenseID: lic.ID, PageRequest: store.PageRequest{Page: 1, PerPage: 100}})
		if err != nil || p.Total != n-2 || !slices.Equal(pageIDs(t, p), want) {
			t.Fatalf("after two resets: %d of %d devices, %v; want %d", len(p.Data), p.Total, err, n-2)
		}
		d, err := f.db.FindLicense(f.ctx, sc, lic.ID)
		if err != nil || d.DevicesCount != n-2 {
			t.Fatalf("detail after two resets: devices_count %d, %v", d.DevicesCount, err)
		}
		// The other license keeps its binding of the same device.
		other, err := f.db.FindLicense(f.ctx, sc, gen[1].ID)
		if err != nil || other.DevicesCount != 1 || len(other.Devices) != 1 || other.Devices[0].ID != devs[0] {
			t.Fatalf("the other license = %+v, %v", other, err)
		}
		// Two seats are free again: a new device takes one.
		f.activation(t, lic.Key, "site-extra")
		d, err = f.db.FindLicense(f.ctx, sc, lic.ID)
		if err != nil || d.DevicesCount != n-1 || d.Devices[0].Fingerprint != "site-extra" {
			t.Fatalf("detail after a new activation: devices_count %d, first %+v, %v", d.DevicesCount, d.Devices[0], err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{LicenseID: store.NewID()})
		wantCode(t, "ListDevices(unknown license)", err, store.ECodeNotFound)
		_, err = f.db.ListDevices(f.ctx, f.scope(store.EnvDevelopment), store.StatusFilter{LicenseID: lic.ID})
		wantCode(t, "ListDevices(license of the other environment)", err, store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, bad := range []store.StatusFilter{
			{LicenseID: "not-a-uuid"},
			{LicenseID: lic.ID, Status: store.DeviceActive},
			{LicenseID: lic.ID, Fingerprint: "site-01"},
		} {
			_, err := f.db.ListDevices(f.ctx, sc, bad)
			wantCode(t, fmt.Sprintf("ListDevices(%+v)", bad), err, store.ECodeValidation)
		}
		_, err := f.db.ListEndUsers(f.ctx, sc, store.StatusFilter{LicenseID: lic.ID})
		wantCode(t, "ListEndUsers(license_id)", err, store.ECodeValidation)
	})
}

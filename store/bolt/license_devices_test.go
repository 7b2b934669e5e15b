package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// checkV1Bindings: after migration 7 every device a version-1 license listed
// is in license_devices, counted, bound when the record said (or at its
// device's first sighting where it said nothing), and nothing else is.
func checkV1Bindings(t *testing.T, db *DB, d *dump) {
	t.Helper()
	want := 0
	err := db.view(t.Context(), func(tx *txn) error {
		for _, p := range d.Buckets[string(bLicenses)] {
			v1, err := p.value()
			if err != nil {
				return err
			}
			old := new(licenseV5)
			if err := decodeV1(v1, old); err != nil {
				return err
			}
			k, _ := hex.DecodeString(p.K)
			old.ID = ids(k)
			cur := new(store.License)
			if err := tx.mustGet(bLicenses, old.ID, "license", cur); err != nil {
				return err
			}
			if cur.DevicesCount != len(old.DeviceIDs) {
				t.Errorf("license %s: devices_count %d, want %d", old.ID, cur.DevicesCount, len(old.DeviceIDs))
			}
			for _, did := range old.DeviceIDs {
				raw := tx.tx.Bucket(bLicDevices).Get(licDeviceKey(old.ID, did))
				dev := new(store.Device)
				if err := tx.mustGet(bDevices, did, "device", dev); err != nil {
					return err
				}
				at, ok := old.DeviceBoundAt[did]
				if !ok {
					at = dev.CreatedAt
				}
				if raw == nil || !time.Unix(0, int64(binary.BigEndian.Uint64(raw))).Equal(at) {
					t.Errorf("binding %s/%s = %x, want %v", old.ID, did, raw, at)
				}
			}
			want += len(old.DeviceIDs)
		}
		if got := tx.tx.Bucket(bLicDevices).Stats().KeyN; got != want {
			t.Errorf("license_devices holds %d bindings, want %d", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateLicenseDevicesFromV6 writes a version-6 file as that version
// did, with one license's 25 devices inside its record (one bound before
// DeviceBoundAt existed), and opens it: the bindings move to the index, the
// detail carries the first page and the count, the list by license pages the
// rest, and the record no longer holds them.
func TestMigrateLicenseDevicesFromV6(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lic := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID})[0]
	var devs []string
	for i := range 25 {
		e.clock.advance(time.Minute)
		d, err := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, "fp-"+string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, d.ID)
	}
	boundAt := func(i int) time.Time { return time.Date(2029, 6, 1, 0, i, 0, 0, time.UTC) }
	// Back to version 6: the devices inside the license, no index.
	v5Size := 0
	db := rewindTo(t, e, 6, func(tx *bbolt.Tx) error {
		cur := new(store.License)
		if err := decode(bLicenses, idb(lic.ID), tx.Bucket(bLicenses).Get(idb(lic.ID)), cur); err != nil {
			return err
		}
		old := &licenseV5{ID: cur.ID, AppID: cur.AppID, EnvID: cur.EnvID, Key: cur.Key, PlanID: cur.PlanID, Status: store.LicenseActive,
			EntitlementIDs: cur.EntitlementIDs, DeviceIDs: devs, DeviceBoundAt: map[string]time.Time{}, DeviceResetsRemaining: cur.DeviceResetsRemaining,
			CreatedAt: cur.CreatedAt, UpdatedAt: cur.UpdatedAt}
		for i, d := range devs[1:] {
			old.DeviceBoundAt[d] = boundAt(i + 1)
		}
		raw, err := encodeRecord(old)
		if err != nil {
			return err
		}
		v5Size = len(raw)
		if err := tx.Bucket(bLicenses).Put(idb(lic.ID), raw); err != nil {
			return err
		}
		return tx.DeleteBucket(bLicDevices)
	})
	det, err := db.FindLicense(e.ctx, e.scope, lic.ID)
	if err != nil {
		t.Fatal(err)
	}
	if det.DevicesCount != 25 || len(det.Devices) != store.LicenseDetailDevices {
		t.Fatalf("detail: devices_count %d, %d devices; want 25, %d", det.DevicesCount, len(det.Devices), store.LicenseDetailDevices)
	}
	for i, d := range det.Devices {
		n := 24 - i // newest device first
		if d.ID != devs[n] || !d.BoundAt.Equal(boundAt(n)) {
			t.Fatalf("detail device %d = %s bound %v, want %s bound %v", i, d.ID, d.BoundAt, devs[n], boundAt(n))
		}
	}
	rest, err := db.ListDevices(e.ctx, e.scope, store.StatusFilter{LicenseID: lic.ID, PageRequest: store.PageRequest{Page: 2, PerPage: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Total != 25 || len(rest.Data) != 5 || rest.Data[4].ID != devs[0] {
		t.Fatalf("page 2: total %d, %d devices", rest.Total, len(rest.Data))
	}
	// The binding older than DeviceBoundAt reads as its device's creation.
	first, err := db.ListDevices(e.ctx, e.scope, store.StatusFilter{Fingerprint: "fp-a"})
	if err != nil || len(first.Data) != 1 {
		t.Fatalf("fp-a: %+v, %v", first, err)
	}
	err = db.view(e.ctx, func(tx *txn) error {
		got, err := tx.boundDevices(first.Data[0].EnvID, lic.ID, 24, 1)
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].ID != devs[0] || !got[0].BoundAt.Equal(first.Data[0].CreatedAt) {
			t.Errorf("oldest binding = %+v, want bound at %v", got, first.Data[0].CreatedAt)
		}
		// The record is the new one, without the 25 device ids.
		raw := tx.tx.Bucket(bLicenses).Get(idb(lic.ID))
		if err := decodeRecord(idb(lic.ID), raw, new(store.License)); err != nil || len(raw) > v5Size-25*16 {
			t.Errorf("license record of %d bytes (%v), %d in version 5", len(raw), err, v5Size)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLicenseDeviceIndexCounts binds, rebinds and unbinds through the
// runtime and the management reset and checks the index against its count
// and the devices' own license lists.
func TestLicenseDeviceIndexCounts(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 2})
	var devs []*store.Device
	for _, fp := range []string{"fp1", "fp2", "fp3"} {
		d, err := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, fp)
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, d)
	}
	for _, d := range devs {
		if _, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, lics[0].ID, d.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	// Binding again changes nothing.
	if _, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, lics[0].ID, devs[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, lics[1].ID, devs[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	check := func(licID string, want ...*store.Device) {
		t.Helper()
		page, err := e.db.ListDevices(e.ctx, e.scope, store.StatusFilter{LicenseID: licID})
		if err != nil {
			t.Fatal(err)
		}
		var got, wantIDs []string
		for _, d := range page.Data {
			got = append(got, d.ID)
		}
		for _, d := range slices.Backward(want) {
			wantIDs = append(wantIDs, d.ID)
		}
		if page.Total != len(want) || !slices.Equal(got, wantIDs) {
			t.Fatalf("license %s: total %d, devices %q; want %q", licID, page.Total, got, wantIDs)
		}
		det, err := e.db.FindLicense(e.ctx, e.scope, licID)
		if err != nil || det.DevicesCount != len(want) || len(det.Devices) != len(want) {
			t.Fatalf("detail: %d of %d devices, %v; want %d", len(det.Devices), det.DevicesCount, err, len(want))
		}
	}
	check(lics[0].ID, devs...)
	check(lics[1].ID, devs[0])
	if err := e.db.ResetLicenseDevice(e.ctx, e.scope, lics[0].ID, devs[1].ID); err != nil {
		t.Fatal(err)
	}
	check(lics[0].ID, devs[0], devs[2])
	check(lics[1].ID, devs[0])
	if err := e.db.ResetLicenseDevice(e.ctx, e.scope, lics[0].ID, devs[1].ID); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("second reset: %v, want not_found", err)
	}
	// Deleting the application for good leaves no binding behind.
	if err := e.db.DeleteApplication(e.ctx, e.scope.App(), true); err != nil {
		t.Fatal(err)
	}
	err := e.db.view(e.ctx, func(tx *txn) error {
		if k, _ := tx.tx.Bucket(bLicDevices).Cursor().First(); k != nil {
			t.Errorf("binding %x survived its application", k)
		}
		if ok, _ := tx.get(bLicenses, lics[0].ID, new(store.License)); ok {
			t.Error("the deleted license's record, with its device count, survived")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateDevicesCountFromV9: a version-9 file, which counted bindings in
// bCounts, opens with each license's count in its record, counted from its
// bindings (not from a stale count), and no count left in bCounts.
func TestMigrateDevicesCountFromV9(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 3})
	for i, fp := range []string{"fp1", "fp2", "fp3"} {
		d, err := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, fp)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lics[:3-i] {
			if _, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, l.ID, d.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Back to version 9: records without a count, the count in bCounts,
	// and one of them stale.
	stale := map[string]uint64{lics[0].ID: 3, lics[1].ID: 2, lics[2].ID: 7}
	db := rewindTo(t, e, 9, func(tx *bbolt.Tx) error {
		err := rewriteBucket(tx.Bucket(bLicenses), func(k, v []byte) ([]byte, error) {
			l := new(store.License)
			if err := decode(bLicenses, k, v, l); err != nil {
				return nil, err
			}
			l.DevicesCount = 0
			raw, err := encodeRecord(l)
			return raw[:len(raw)-1], err // version 9 wrote no count at all
		})
		if err != nil {
			return err
		}
		for id, n := range stale {
			if err := tx.Bucket(bCounts).Put(countKey(bLicDevices, idb(id)), u64(n)); err != nil {
				return err
			}
		}
		return nil
	})
	for i, l := range lics {
		det, err := db.FindLicense(e.ctx, e.scope, l.ID)
		if err != nil || det.DevicesCount != 3-i {
			t.Fatalf("license %d: devices_count %d, %v; want %d", i, det.DevicesCount, err, 3-i)
		}
	}
	err := db.view(e.ctx, func(tx *txn) error {
		if k, _ := tx.tx.Bucket(bCounts).Cursor().Seek(countKey(bLicDevices, nil)); k != nil && bytes.HasPrefix(k, countKey(bLicDevices, nil)) {
			t.Errorf("count %x survived the migration", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLicenseRecordSizeIndependentOfDevices: binding devices leaves the
// license record as large as it was, so reading and writing it (every
// activation, reset and validation does) costs the same at any device count.
func TestLicenseRecordSizeIndependentOfDevices(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lic := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID})[0]
	size := func() int {
		n := 0
		_ = e.db.view(e.ctx, func(tx *txn) error {
			n = len(tx.tx.Bucket(bLicenses).Get(idb(lic.ID)))
			return nil
		})
		return n
	}
	before := size()
	for i := range 40 {
		d, err := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, "grow-"+string(rune('A'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, lic.ID, d.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	if after := size(); after != before {
		t.Fatalf("license record of %d bytes after 40 bindings, %d before", after, before)
	}
	det, err := e.db.FindLicense(e.ctx, e.scope, lic.ID)
	if err != nil || det.DevicesCount != 40 || len(det.Devices) != store.LicenseDetailDevices {
		t.Fatalf("detail: %d of %d devices, %v", len(det.Devices), det.DevicesCount, err)
	}
}

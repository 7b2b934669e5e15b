package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"licensectl/store"
)

// The devices bound to a license live in bLicDevices, one key per binding,
// with the binding time as value and the count in bCounts: binding,
// unbinding, testing a binding and counting cost the same whatever the
// license's device count, and a page of them costs its offset and size.

// licDeviceKey is the binding of device to license.
func licDeviceKey(licenseID, deviceID string) []byte {
	return key(idb(licenseID), idb(deviceID))
}

// isBound reports whether the device is bound to the license.
func (t *txn) isBound(licenseID, deviceID string) bool {
	return t.tx.Bucket(bLicDevices).Get(licDeviceKey(licenseID, deviceID)) != nil
}

// devicesCount is how many devices are bound to the license.
func (t *txn) devicesCount(licenseID string) int {
	return t.count(bLicDevices, idb(licenseID))
}

// bindDevice binds the device to the license at at; binding a bound device
// changes nothing.
func (t *txn) bindDevice(licenseID, deviceID string, at time.Time) error {
	k := licDeviceKey(licenseID, deviceID)
	b := t.tx.Bucket(bLicDevices)
	if b.Get(k) != nil {
		return nil
	}
	if err := b.Put(k, timeKey(at)); err != nil {
		return err
	}
	return t.addCount(bLicDevices, idb(licenseID), 1)
}

// unbindDevice removes the binding and reports whether there was one.
func (t *txn) unbindDevice(licenseID, deviceID string) (bool, error) {
	k := licDeviceKey(licenseID, deviceID)
	b := t.tx.Bucket(bLicDevices)
	if b.Get(k) == nil {
		return false, nil
	}
	if err := b.Delete(k); err != nil {
		return false, err
	}
	return true, t.addCount(bLicDevices, idb(licenseID), -1)
}

// boundDevices returns up to limit devices bound to the license, newest
// device first, after skipping offset, with the time each was bound.
func (t *txn) boundDevices(envID, licenseID string, offset, limit int) ([]store.LicenseDevice, error) {
	out := []store.LicenseDevice{}
	prefix := idb(licenseID)
	c := t.tx.Bucket(bLicDevices).Cursor()
	for k, v := seekLast(c, prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Prev() {
		if offset > 0 {
			offset--
			continue
		}
		if len(k) != 32 || len(v) != 8 {
			return nil, fmt.Errorf("%s/%x: a binding of %d bytes", bLicDevices, k, len(v))
		}
		dev, err := t.device(envID, ids(k[16:]))
		if err != nil {
			return nil, fmt.Errorf("%s/%x: %w", bLicDevices, k, err)
		}
		out = append(out, store.LicenseDevice{ID: dev.ID, Fingerprint: dev.Fingerprint, Status: dev.Status,
			BoundAt: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), LastSeenAt: dev.LastSeenAt})
	}
	return out, nil
}

// licenseDevicesPage pages the devices bound to a license of the scope's
// environment (ListDevices with a license_id). Returns not_found.
func (t *txn) licenseDevicesPage(envID string, f store.StatusFilter) (*store.Page[*store.Device], error) {
	if _, err := t.license(envID, f.LicenseID); err != nil {
		return nil, err
	}
	return listPage[store.Device](t, bLicDevices, idb(f.LicenseID), bDevices, f.PageRequest)
}

package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"licensectl/store"
)

// The devices bound to a license live in bLicDevices, one key per binding,
// with the binding time as value, and their count in the license record:
// binding, unbinding, testing a binding and counting cost the same whatever
// the license's device count, and a page of them costs its offset and size.
// A binding always rewrites its license (updated_at), so the count kept
// there costs no page of its own, where a count in bCounts cost one random
// page per activation (docs/performance.md).

// licDeviceKey is the binding of device to license.
func licDeviceKey(licenseID, deviceID string) []byte {
	return key(idb(licenseID), idb(deviceID))
}

// isBound reports whether the device is bound to the license.
func (t *txn) isBound(licenseID, deviceID string) bool {
	return t.tx.Bucket(bLicDevices).Get(licDeviceKey(licenseID, deviceID)) != nil
}

// bindDevice binds the device to l at at and counts it on l, which the
// caller saves; binding a bound device changes nothing.
func (t *txn) bindDevice(l *store.License, deviceID string, at time.Time) error {
	k := licDeviceKey(l.ID, deviceID)
	b := t.tx.Bucket(bLicDevices)
	if b.Get(k) != nil {
		return nil
	}
	if err := b.Put(k, timeKey(at)); err != nil {
		return err
	}
	l.DevicesCount++
	return nil
}

// unbindDevice removes the binding, uncounts it on l, which the caller
// saves, and reports whether there was one.
func (t *txn) unbindDevice(l *store.License, deviceID string) (bool, error) {
	k := licDeviceKey(l.ID, deviceID)
	b := t.tx.Bucket(bLicDevices)
	if b.Get(k) == nil {
		return false, nil
	}
	if err := b.Delete(k); err != nil {
		return false, err
	}
	if l.DevicesCount <= 0 {
		return false, fmt.Errorf("license %s: unbinding a device with %d counted", l.ID, l.DevicesCount)
	}
	l.DevicesCount--
	return true, nil
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
		out = append(out, store.LicenseDevice{ID: dev.ID, Fingerprint: dev.Fingerprint, Name: dev.Name, Platform: dev.Platform, Status: dev.Status,
			BoundAt: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), LastSeenAt: dev.LastSeenAt})
	}
	return out, nil
}

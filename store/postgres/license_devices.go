package postgres

import (
	"time"

	"licensectl/store"
)

// The devices bound to a license are the rows of license_devices, with the
// count in licenses.devices_count (bindDevice, unbindDevice): testing a
// binding and counting cost the same whatever the license's device count,
// and a page of them is a keyset page of devices.

// isBound reports whether the device is bound to the license.
func (t *txn) isBound(licenseID, deviceID string) (bool, error) {
	n, err := t.count(`SELECT count(*) FROM license_devices WHERE license_id = $1 AND device_id = $2`,
		uuidOrNil(licenseID), uuidOrNil(deviceID))
	return n > 0, err
}

// boundDevices returns up to limit devices bound to the license, newest
// device first, with the time each was bound.
func (t *txn) boundDevices(envID, licenseID string, limit int) ([]store.LicenseDevice, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT d.doc, ld.bound_at FROM license_devices ld JOIN devices d ON d.id = ld.device_id
		WHERE ld.license_id = $1 AND d.env_id = $2 ORDER BY ld.device_id DESC LIMIT $3`, licenseID, envID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []store.LicenseDevice{}
	for rows.Next() {
		var raw []byte
		var at time.Time
		if err := rows.Scan(&raw, &at); err != nil {
			return nil, err
		}
		dev, err := decode[store.Device](raw)
		if err != nil {
			return nil, err
		}
		out = append(out, store.LicenseDevice{ID: dev.ID, Fingerprint: dev.Fingerprint, Name: dev.Name, Platform: dev.Platform, Status: dev.Status,
			BoundAt: at.UTC(), LastSeenAt: dev.LastSeenAt})
	}
	return out, rows.Err()
}

// bindDevice adds device to license's index and count; false when it was
// bound already.
func (t *txn) bindDevice(licenseID, deviceID string) (bool, error) {
	n, err := t.exec(`INSERT INTO license_devices (license_id, device_id, bound_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		licenseID, deviceID, t.now)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = t.exec(`UPDATE licenses SET devices_count = devices_count + 1 WHERE id = $1`, licenseID)
	return true, err
}

// unbindDevice removes device from license's index and count; false when
// it was not bound.
func (t *txn) unbindDevice(licenseID, deviceID string) (bool, error) {
	n, err := t.exec(`DELETE FROM license_devices WHERE license_id = $1 AND device_id = $2`, licenseID, deviceID)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = t.exec(`UPDATE licenses SET devices_count = devices_count - 1 WHERE id = $1`, licenseID)
	return true, err
}

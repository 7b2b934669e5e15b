package bolt

import (
	"licensectl/store"
)

var _ store.Devices = (*DB)(nil)

// DevicePage implements store.Tx. A page costs offset+per_page index keys;
// total is a kept count.
func (t *txn) DevicePage(envID, status string, p store.PageRequest) (*store.Page[*store.Device], error) {
	return envPage[store.Device](t, bDevicesEnv, bDevicesEnvStatus, bDevices, envID, status, p)
}

// DeviceByFingerprint implements store.Tx: one index get.
func (t *txn) DeviceByFingerprint(envID, fp string) (*store.Device, error) {
	id := t.deviceByFingerprint(envID, fp)
	if id == "" {
		return nil, nil
	}
	d := new(store.Device)
	ok, err := t.get(bDevices, id, d)
	if err != nil || !ok {
		return nil, err
	}
	return d, nil
}

// BoundDevicePage implements store.Tx: a walk of the license's bindings
// (license_devices), counted by the license.
func (t *txn) BoundDevicePage(l *store.License, p store.PageRequest) (*store.Page[*store.Device], error) {
	page, err := listPage[store.Device](t, bLicDevices, idb(l.ID), bDevices, p)
	if err != nil {
		return nil, err
	}
	page.Total = l.DevicesCount
	return page, nil
}

// LiveDeviceSessions implements store.Tx.
func (t *txn) LiveDeviceSessions(deviceID string) (int, error) {
	return t.liveSessions(t.all(bSessionsDevice, idb(deviceID)), "")
}

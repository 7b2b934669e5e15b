package bolt

import (
	"strings"

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

// saveDevice writes d and its indexes.
func (t *txn) saveDevice(prev, d *store.Device) error {
	if err := t.put(bDevices, d.ID, d); err != nil {
		return err
	}
	env := idb(d.EnvID)
	if prev == nil {
		if err := t.index(bDevicesEnv, env, d.ID); err != nil {
			return err
		}
		if err := t.setUnique(bDevicesFP, key(env, []byte(d.Fingerprint)), d.ID); err != nil {
			return err
		}
	} else {
		if prev.Fingerprint != d.Fingerprint {
			// A re-bind: the device answers to its new fingerprint only.
			if err := t.delUnique(bDevicesFP, key(env, []byte(prev.Fingerprint))); err != nil {
				return err
			}
			if err := t.setUnique(bDevicesFP, key(env, []byte(d.Fingerprint)), d.ID); err != nil {
				return err
			}
		}
		if prev.Status == d.Status {
			return nil
		}
		if err := t.unindex(bDevicesEnvStatus, key(env, str(prev.Status)), d.ID); err != nil {
			return err
		}
	}
	return t.index(bDevicesEnvStatus, key(env, str(d.Status)), d.ID)
}

// device loads a device of environment env.
func (t *txn) device(envID, id string) (*store.Device, error) {
	d := new(store.Device)
	if err := t.mustGet(bDevices, id, "device", d); err != nil {
		return nil, err
	}
	if d.EnvID != envID {
		return nil, store.NotFound("device")
	}
	return d, nil
}

// deviceByFingerprint returns the id of the device of env with this
// fingerprint, or "".
func (t *txn) deviceByFingerprint(envID, fp string) string {
	return t.lookup(bDevicesFP, key(idb(envID), []byte(strings.TrimSpace(fp))))
}

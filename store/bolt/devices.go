package bolt

import (
	"context"
	"strings"

	"licensectl/store"
)

var _ store.Devices = (*DB)(nil)

// ListDevices implements store.Devices. A page costs offset+per_page index
// keys; total is a kept count. A fingerprint filter is one index get; a
// license filter walks the license's bindings (license_devices).
func (db *DB) ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error) {
	if err := f.CheckDevices(); err != nil {
		return nil, err
	}
	if f.LicenseID != "" {
		if err := f.Normalize(); err != nil {
			return nil, err
		}
		var out *store.Page[*store.Device]
		err := db.view(ctx, func(t *txn) error {
			_, env, err := t.scope(s)
			if err != nil {
				return err
			}
			out, err = t.licenseDevicesPage(env.ID, f)
			return err
		})
		return out, err
	}
	var byFingerprint func(*txn, string) string
	if f.Fingerprint != "" {
		byFingerprint = func(t *txn, envID string) string { return t.deviceByFingerprint(envID, f.Fingerprint) }
	}
	return listEnvPage(ctx, db, s, f, bDevicesEnv, bDevicesEnvStatus, bDevices, byFingerprint, func(d *store.Device) string { return d.Status })
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

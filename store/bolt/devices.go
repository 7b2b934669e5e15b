package bolt

import (
	"context"

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

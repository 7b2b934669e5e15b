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

// SetDeviceStatus implements store.Devices. Blocking revokes every live
// session of the device; unblocking restores none (clients sign in again).
// Setting the status the device already has changes nothing.
func (db *DB) SetDeviceStatus(ctx context.Context, s store.Scope, id, status string) (*store.Device, error) {
	if err := store.DeviceStatus.Check(status); err != nil {
		return nil, err
	}
	var out *store.Device
	err := db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prev, err := t.device(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status)
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.saveDevice(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = t.revokeSessions(bSessionsDevice, next.ID, RevokedStatus); err != nil {
				return err
			}
			if _, err := t.endLeases(bLeasesDevice, next.ID, change.Event); err != nil {
				return err
			}
		}
		out = &next
		return t.audit(auditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: store.Target{Type: "device", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

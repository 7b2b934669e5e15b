package postgres

import (
	"context"
	"strings"

	"licensectl/store"
)

var _ store.Devices = (*DB)(nil)

// ListDevices implements store.Devices: keyset pages newest first, the one
// device a fingerprint names, or the devices bound to a license.
func (db *DB) ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error) {
	if err := f.CheckDevices(); err != nil {
		return nil, err
	}
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *store.Page[*store.Device]
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		switch {
		case f.LicenseID != "":
			out, err = t.licenseDevicesPage(env.ID, f)
		case f.Fingerprint != "":
			var d *store.Device
			if d, err = t.deviceByFingerprint(env.ID, strings.TrimSpace(f.Fingerprint)); err != nil {
				return err
			}
			out, err = store.PageOf(licFound(d, f.Status, func(d *store.Device) string { return d.Status }), f.PageRequest)
		default:
			where, args := licStatusWhere(env.ID, f.Status)
			out, err = listPage[store.Device](t, "devices", where, args, f.PageRequest)
		}
		return err
	})
	return out, err
}

// licStatusWhere is the condition of an environment's list of end-users or
// devices, on the columns their env and env_status indexes cover.
func licStatusWhere(envID, status string) (string, []any) {
	if status == "" {
		return `env_id = $1`, []any{envID}
	}
	return `env_id = $1 AND status = $2`, []any{envID, status}
}

// licFound is the list a lookup found: v, when there is one and its status
// is the filter's.
func licFound[T any](v *T, status string, statusOf func(*T) string) []*T {
	if v == nil || (status != "" && statusOf(v) != status) {
		return nil
	}
	return []*T{v}
}

// lockDevice loads a device of environment envID with its row locked until
// the transaction ends, so that two changes of one device on two servers
// come one after the other instead of one losing the other's.
func (t *txn) lockDevice(envID, id string) (*store.Device, error) {
	d, err := mustDoc[store.Device](t, "device", `SELECT doc FROM devices WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if envID != "" && d.EnvID != envID {
		return nil, store.NotFound("device")
	}
	return d, nil
}

// device loads a device of environment envID.
func (t *txn) device(envID, id string) (*store.Device, error) {
	d, err := mustDoc[store.Device](t, "device", `SELECT doc FROM devices WHERE id = $1`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if envID != "" && d.EnvID != envID {
		return nil, store.NotFound("device")
	}
	return d, nil
}

// deviceByFingerprint loads the device of envID with this fingerprint; nil
// when there is none.
func (t *txn) deviceByFingerprint(envID, fp string) (*store.Device, error) {
	return doc[store.Device](t, `SELECT doc FROM devices WHERE env_id = $1 AND fingerprint = $2`, envID, fp)
}

// saveDevice writes d (insert when new).
func (t *txn) saveDevice(d *store.Device, isNew bool) error {
	if isNew {
		_, err := t.exec(`INSERT INTO devices (id, app_id, env_id, fingerprint, status, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
			d.ID, d.AppID, d.EnvID, d.Fingerprint, d.Status, js(d))
		return err
	}
	_, err := t.exec(`UPDATE devices SET status = $2, doc = $3, fingerprint = $4 WHERE id = $1`, d.ID, d.Status, js(d), d.Fingerprint)
	return err
}

package postgres

import (
	"licensectl/store"
)

var _ store.Devices = (*DB)(nil)

// DevicePage implements store.Tx: keyset pages newest first.
func (t *txn) DevicePage(envID, status string, p store.PageRequest) (*store.Page[*store.Device], error) {
	where, args := envStatusWhere(envID, status)
	return listPage[store.Device](t, "devices", where, args, p)
}

// DeviceByFingerprint implements store.Tx.
func (t *txn) DeviceByFingerprint(envID, fp string) (*store.Device, error) {
	return t.deviceByFingerprint(envID, fp)
}

// BoundDevicePage implements store.Tx: keyset pages on the devices' ids.
func (t *txn) BoundDevicePage(l *store.License, p store.PageRequest) (*store.Page[*store.Device], error) {
	return listPage[store.Device](t, "devices", `id IN (SELECT device_id FROM license_devices WHERE license_id = $1)`,
		[]any{l.ID}, p)
}

// LiveDeviceSessions implements store.Tx.
func (t *txn) LiveDeviceSessions(deviceID string) (int, error) {
	return t.liveSessions("device_id", deviceID)
}

// envStatusWhere is the condition of an environment's list of end-users or
// devices, on the columns their env and env_status indexes cover.
func envStatusWhere(envID, status string) (string, []any) {
	if status == "" {
		return `env_id = $1`, []any{envID}
	}
	return `env_id = $1 AND status = $2`, []any{envID, status}
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

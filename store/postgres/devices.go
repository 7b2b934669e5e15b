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

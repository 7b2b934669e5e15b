package bolt

import (
	"licensectl/store"
)

// InsertEndUser implements store.Tx.
func (t *txn) InsertEndUser(u *store.EndUser) error {
	if t.lookup(bEndUsersEmail, key(idb(u.EnvID), []byte(u.Email))) != "" {
		return store.ErrEndUserEmailTaken()
	}
	return t.saveEndUser(nil, u)
}

// findOrCreateDevice returns the device with this fingerprint in the
// application environment, creating it (active, unbound) when new. created
// reports a new device, so callers can audit it.
func (t *txn) findOrCreateDevice(a *store.Application, envID, fingerprint string) (d *store.Device, created bool, err error) {
	if id := t.lookup(bDevicesFP, key(idb(envID), []byte(fingerprint))); id != "" {
		d, err = t.device(envID, id)
		return d, false, err
	}
	d = &store.Device{ID: store.NewID(), AppID: a.ID, EnvID: envID, Fingerprint: fingerprint, Status: store.DeviceActive, LicenseIDs: []string{}, CreatedAt: t.now}
	return d, true, t.saveDevice(nil, d)
}

package bolt

import (
	"context"

	"licensectl/store"
	"licensectl/store/password"
)

// RegisterEndUser creates an end-user in the scope's environment. The
// password is hashed before the transaction. Returns validation_failed,
// email_taken, not_found, application_disabled.
func (db *DB) RegisterEndUser(ctx context.Context, s store.Scope, email, pw string) (*store.EndUser, error) {
	email, err := store.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if err := store.CheckEndUserPassword(pw, password.IsCommon); err != nil {
		return nil, err
	}
	if db.Hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	hash, err := db.Hasher.Hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	var out *store.EndUser
	err = db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if err := a.CheckActive(); err != nil {
			return err
		}
		if t.lookup(bEndUsersEmail, key(idb(env.ID), []byte(email))) != "" {
			return store.Errorf(store.ECodeEmailTaken, "a user with this e-mail already exists")
		}
		u := &store.EndUser{ID: store.NewID(), AppID: a.ID, EnvID: env.ID, Email: email, PasswordHash: hash, Status: store.UserActive,
			Roles: []string{}, CreatedAt: t.now, UpdatedAt: t.now}
		if err := t.saveEndUser(nil, u); err != nil {
			return err
		}
		out = u
		return t.audit(auditEvent{Event: store.EventUserRegistered, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: store.Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"email": email}})
	})
	return out, err
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

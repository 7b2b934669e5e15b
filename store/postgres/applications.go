package postgres

import (
	"licensectl/store"
)

var _ = conflictOn("apps_org_slug_key", func() error { return store.Errorf(store.ECodeSlugTaken, "slug is taken") })

var _ store.Applications = (*DB)(nil)

// The row locks an application's row is read with in a write. A record
// written under the application takes appLockWrite, a change of the
// application's doc appLockChange, and its permanent deletion appLockPurge, which
// waits for every write under it and makes them wait: a record written
// under an application another server is purging either commits first, and
// is purged, or finds the application gone. appLockWrite and appLockChange do not
// wait for each other.
const (
	appLockWrite  = "FOR KEY SHARE"
	appLockChange = "FOR NO KEY UPDATE"
	appLockPurge  = "FOR UPDATE"
)

// lockApp is app with the application's row locked as lock says until the
// transaction ends.
func (t *txn) lockApp(ref store.AppRef, lock string) (*store.Application, error) {
	a, err := mustDoc[store.Application](t, "application", `SELECT doc FROM apps WHERE id = $1 `+lock, uuidOrNil(ref.AppID))
	if err != nil {
		return nil, err
	}
	if err := ref.Owns(a); err != nil {
		return nil, err
	}
	return a, nil
}

// Applications implements store.Tx.
func (t *txn) Applications(orgID string) ([]*store.Application, error) {
	return docs[store.Application](t, `SELECT doc FROM apps WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
}

// purgeApp removes an application and every record under it, in every
// shared table: what its environments hold (licenses and their device
// bindings, end-users, devices, sessions, leases, nonces, the entries of its
// audit logs), what the application holds (entitlements, plans, secrets,
// webhook endpoints with their deliveries and the outbox events not yet
// expanded), then the application and its environments (docs/design.md §6:
// "removes the application and everything under it").
func (t *txn) purgeApp(a *store.Application) error {
	envs := a.EnvIDs()
	// The events not yet expanded go first: deleting one waits for a server
	// expanding it, whose deliveries are then committed and dropped below
	// with the others instead of outliving the application.
	if _, err := t.exec(`DELETE FROM outbox_bodies b WHERE b.event_id IN (SELECT id FROM outbox_events WHERE app_id = $1)`, a.ID); err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM outbox_events WHERE app_id = $1`, a.ID); err != nil {
		return err
	}
	if err := t.dropDeliveries(`app_id = $1`, a.ID); err != nil {
		return err
	}
	steps := []struct {
		sql string
		arg any
	}{
		{`DELETE FROM license_devices WHERE license_id IN (SELECT id FROM licenses WHERE env_id = ANY($1))`, envs},
		{`DELETE FROM leases WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM sessions WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM licenses WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM end_users WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM devices WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM nonces WHERE env_id = ANY($1)`, envs},
		{`DELETE FROM audit WHERE env_ids && $1::uuid[]`, envs},
		{`DELETE FROM entitlements WHERE app_id = $1`, a.ID},
		{`DELETE FROM plans WHERE app_id = $1`, a.ID},
		{`DELETE FROM app_secrets WHERE app_id = $1`, a.ID},
		{`DELETE FROM webhooks WHERE app_id = $1`, a.ID},
		{`DELETE FROM app_envs WHERE app_id = $1`, a.ID},
		{`DELETE FROM apps WHERE id = $1`, a.ID},
	}
	for _, s := range steps {
		if _, err := t.exec(s.sql, s.arg); err != nil {
			return err
		}
	}
	t.hooks = nil // the endpoints read for the outbox are gone
	return nil
}

// app loads an application and checks that it belongs to ref's
// organization; another organization's application is not_found, never
// forbidden.
func (t *txn) app(ref store.AppRef) (*store.Application, error) {
	// In a write, the row is locked as every write under the application
	// locks it (appLockWrite), so that a permanent deletion on another
	// server purges what the write adds or the write finds it gone.
	lock := ""
	if t.write {
		lock = " " + appLockWrite
	}
	a, err := mustDoc[store.Application](t, "application", `SELECT doc FROM apps WHERE id = $1`+lock, uuidOrNil(ref.AppID))
	if err != nil {
		return nil, err
	}
	if err := ref.Owns(a); err != nil {
		return nil, err
	}
	return a, nil
}

// scope loads the application of s and the environment it names.
func (t *txn) scope(s store.Scope) (*store.Application, *store.Environment, error) {
	return s.Resolve(t.app)
}

// saveApp writes a (insert when new) and its environments.
func (t *txn) saveApp(a *store.Application, isNew bool) error {
	if isNew {
		if _, err := t.exec(`INSERT INTO apps (id, org_id, slug, status, doc) VALUES ($1, $2, $3, $4, $5)`,
			a.ID, a.OrgID, a.Slug, a.Status, js(a)); err != nil {
			return err
		}
		for _, e := range a.Environments {
			if _, err := t.exec(`INSERT INTO app_envs (id, app_id, name, public_key) VALUES ($1, $2, $3, $4)`,
				e.ID, a.ID, e.Name, e.PublicKey); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := t.exec(`UPDATE apps SET slug = $2, status = $3, doc = $4 WHERE id = $1`, a.ID, a.Slug, a.Status, js(a))
	return err
}

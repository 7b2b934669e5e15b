package postgres

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"

	"licensectl/store"
)

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
	if a.OrgID != ref.OrgID {
		return nil, store.NotFound("application")
	}
	return a, nil
}

// ListApplications implements store.Applications.
func (db *DB) ListApplications(ctx context.Context, orgID string) ([]*store.Application, error) {
	var out []*store.Application
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = docs[store.Application](t, `SELECT doc FROM apps WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
		return err
	})
	return out, err
}

// FindApplication implements store.Applications.
func (db *DB) FindApplication(ctx context.Context, ref store.AppRef) (*store.Application, error) {
	var out *store.Application
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = t.app(ref)
		return err
	})
	return out, err
}

// CreateApplication implements store.Applications.
func (db *DB) CreateApplication(ctx context.Context, in store.CreateApplicationInput) (*store.Application, error) {
	name, err := store.CheckName("name", in.Name)
	if err != nil {
		return nil, err
	}
	in.Name = name
	if in.SupportEmail, err = store.CheckSupportEmail(in.SupportEmail); err != nil {
		return nil, err
	}
	if in.Slug == "" {
		if in.Slug, err = store.ApplicationSlug(in.Name); err != nil {
			return nil, err
		}
	} else if err := store.CheckSlug("slug", in.Slug); err != nil {
		return nil, err
	}
	// Keys are generated once, outside the transaction, so that a retried
	// transaction does not draw them again.
	envs := make([]store.Environment, 0, 2)
	for _, name := range []string{store.EnvDevelopment, store.EnvProduction} {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		prefix := store.PrefixPublicLive
		if name == store.EnvDevelopment {
			prefix = store.PrefixPublicTest
		}
		envs = append(envs, store.Environment{ID: store.NewID(), Name: name, PublicKey: store.NewSecret(prefix), SigningKey: priv, KeyID: store.NewID()})
	}
	id := store.NewID()
	var out *store.Application
	err = db.update(ctx, func(t *txn) error {
		if _, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(in.OrgID)); err != nil {
			return err
		}
		if err := t.enforceLimit(in.OrgID, store.ResApplications, 1); err != nil {
			return err
		}
		a := &store.Application{ID: id, OrgID: in.OrgID, Name: in.Name, Slug: in.Slug, SupportEmail: in.SupportEmail, Status: store.AppActive, CreatedAt: t.now, UpdatedAt: t.now}
		for _, e := range envs {
			e.CreatedAt = t.now
			a.Environments = append(a.Environments, e)
		}
		// The unique index decides between two servers creating the same
		// slug at once; the error is the one bbolt's look-up gives.
		if err := t.saveApp(a, true); err != nil {
			if isUnique(err, "apps_org_slug_key") {
				return store.Errorf(store.ECodeSlugTaken, "an application with slug %q already exists", in.Slug)
			}
			return err
		}
		out = a
		return t.audit(auditEvent{Event: store.EventApplicationCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: appEnvIDs(a),
			Target: store.Target{Type: "application", ID: a.ID}, Metadata: map[string]any{"name": a.Name, "slug": a.Slug}})
	})
	return out, err
}

// UpdateApplication implements store.Applications.
func (db *DB) UpdateApplication(ctx context.Context, ref store.AppRef, upd store.ApplicationUpdate) (*store.Application, error) {
	if upd.Name != nil {
		n, err := store.CheckName("name", *upd.Name)
		if err != nil {
			return nil, err
		}
		upd.Name = &n
	}
	if upd.Status != nil {
		if err := store.AppStatus.Check(*upd.Status); err != nil {
			return nil, err
		}
	}
	if upd.SupportEmail != nil {
		e, err := store.CheckSupportEmail(*upd.SupportEmail)
		if err != nil {
			return nil, err
		}
		upd.SupportEmail = &e
	}
	var out *store.Application
	err := db.update(ctx, func(t *txn) error {
		a, err := t.lockApp(ref, appLockChange)
		if err != nil {
			return err
		}
		meta := map[string]any{}
		if upd.Name != nil && *upd.Name != a.Name {
			meta["name"] = *upd.Name
			a.Name = *upd.Name
		}
		if upd.SupportEmail != nil && *upd.SupportEmail != a.SupportEmail {
			meta["support_email"] = *upd.SupportEmail
			a.SupportEmail = *upd.SupportEmail
		}
		event := store.EventApplicationUpdated
		if upd.Status != nil {
			change, err := store.AppStatus.Transition(a.Status, a.Status, *upd.Status)
			if err != nil {
				return err
			}
			if change.Event != "" {
				meta["status"] = change.To
				a.Status, event = change.To, change.Event
			}
		}
		out = a
		if len(meta) == 0 {
			return nil
		}
		a.UpdatedAt = t.now
		if err := t.saveApp(a, false); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: appEnvIDs(a), Target: store.Target{Type: "application", ID: a.ID}, Metadata: meta})
	})
	return out, err
}

// DeleteApplication implements store.Applications.
func (db *DB) DeleteApplication(ctx context.Context, ref store.AppRef, permanent bool) error {
	if !permanent {
		disabled := store.AppDisabled
		_, err := db.UpdateApplication(ctx, ref, store.ApplicationUpdate{Status: &disabled})
		return err
	}
	// Disabled first, in a transaction of its own that runtime writes do
	// not hold up (appLockChange does not wait for appLockWrite): from then
	// on they refuse without locking the row (Runtime.activeApp), so the
	// purge waits only for the writes already under way instead of being
	// starved by new ones. A purge that fails leaves the application
	// disabled, as a deletion that is not permanent would.
	err := db.update(ctx, func(t *txn) error {
		a, err := t.lockApp(ref, appLockChange)
		if err != nil || a.Status == store.AppDisabled {
			return err
		}
		a.Status = store.AppDisabled
		return t.saveApp(a, false)
	})
	if err != nil {
		return err
	}
	return db.update(ctx, func(t *txn) error {
		a, err := t.lockApp(ref, appLockPurge)
		if err != nil {
			return err
		}
		if err := t.purgeApp(a); err != nil {
			return err
		}
		// The entry outlives the application in the organization's log.
		return t.audit(auditEvent{Event: store.EventApplicationDeleted, OrgID: a.OrgID, Target: store.Target{Type: "application", ID: a.ID},
			Metadata: map[string]any{"name": a.Name, "slug": a.Slug, "permanent": true}})
	})
}

// purgeApp removes an application and every record under it, in every
// shared table: what its environments hold (licenses and their device
// bindings, end-users, devices, sessions, leases, nonces, the entries of its
// audit logs), what the application holds (entitlements, plans, secrets,
// webhook endpoints with their deliveries and the outbox events not yet
// expanded), then the application and its environments (docs/design.md §6:
// "removes the application and everything under it").
func (t *txn) purgeApp(a *store.Application) error {
	envs := appEnvIDs(a)
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

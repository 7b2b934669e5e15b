package bolt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"

	"licensectl/store"
)

var _ store.Applications = (*DB)(nil)

// app loads an application and checks that it belongs to ref's organization;
// another organization's application is not_found, never forbidden.
func (t *txn) app(ref store.AppRef) (*store.Application, error) {
	a := new(store.Application)
	if err := t.mustGet(bApps, ref.AppID, "application", a); err != nil {
		return nil, err
	}
	if a.OrgID != ref.OrgID {
		return nil, store.NotFound("application")
	}
	return a, nil
}

// scope loads the application of s and the environment it names.
func (t *txn) scope(s store.Scope) (*store.Application, *store.Environment, error) {
	a, err := t.app(s.App())
	if err != nil {
		return nil, nil, err
	}
	env, err := s.Environment(a)
	if err != nil {
		return nil, nil, err
	}
	return a, env, nil
}

// ListApplications implements store.Applications.
func (db *DB) ListApplications(ctx context.Context, orgID string) ([]*store.Application, error) {
	var out []*store.Application
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = listAll[store.Application](t, bAppsOrg, idb(orgID), bApps)
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

// FindApplicationByPublicKey returns the application and environment that a
// runtime public key identifies. Returns invalid_application.
func (db *DB) FindApplicationByPublicKey(ctx context.Context, publicKey string) (*store.Application, *store.Environment, error) {
	var a *store.Application
	var env *store.Environment
	err := db.view(ctx, func(t *txn) error {
		v := t.tx.Bucket(bAppsPubKey).Get([]byte(publicKey))
		if len(v) != 32 {
			return store.ErrUnknownAppKey()
		}
		a = new(store.Application)
		ok, err := t.get(bApps, ids(v[:16]), a)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrUnknownAppKey()
		}
		env = a.EnvByID(ids(v[16:]))
		return nil
	})
	return a, env, err
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
	// Keys are generated outside the transaction: it holds the write lock.
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
	var out *store.Application
	err = db.update(ctx, func(t *txn) error {
		org := new(store.Organization)
		if err := t.mustGet(bOrgs, in.OrgID, "organization", org); err != nil {
			return err
		}
		if err := db.enforceLimit(t, in.OrgID, resApplications, 1); err != nil {
			return err
		}
		slugKey := key(idb(in.OrgID), []byte(in.Slug))
		if t.lookup(bAppsSlug, slugKey) != "" {
			return store.Errorf(store.ECodeSlugTaken, "an application with slug %q already exists", in.Slug)
		}
		a := &store.Application{ID: store.NewID(), OrgID: in.OrgID, Name: in.Name, Slug: in.Slug, SupportEmail: in.SupportEmail, Status: store.AppActive, CreatedAt: t.now, UpdatedAt: t.now}
		for _, e := range envs {
			e.CreatedAt = t.now
			a.Environments = append(a.Environments, e)
		}
		if err := t.put(bApps, a.ID, a); err != nil {
			return err
		}
		if err := t.index(bAppsOrg, idb(a.OrgID), a.ID); err != nil {
			return err
		}
		if err := t.setUnique(bAppsSlug, slugKey, a.ID); err != nil {
			return err
		}
		for _, e := range a.Environments {
			if err := t.tx.Bucket(bAppsPubKey).Put([]byte(e.PublicKey), key(idb(a.ID), idb(e.ID))); err != nil {
				return err
			}
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
		a, err := t.app(ref)
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
		if err := t.put(bApps, a.ID, a); err != nil {
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
	return db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
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

// purgeApp removes an application and every record under it.
func (t *txn) purgeApp(a *store.Application) error {
	if err := t.uncountAppLicenses(a); err != nil {
		return err
	}
	app := idb(a.ID)
	for _, e := range a.Environments {
		env := idb(e.ID)
		// Records listed by an environment index, with the unique indexes that name them.
		lics, err := t.dropPrefix(bLicEnv, env)
		if err != nil {
			return err
		}
		for _, id := range lics {
			l := new(store.License)
			if err := t.mustGet(bLicenses, id, "license", l); err != nil {
				return err
			}
			if err := t.delUnique(bLicKey, licKeyIndex(l.Key)); err != nil {
				return err
			}
			if l.ExpiresAt != nil {
				if err := t.tx.Bucket(bLicExpiry).Delete(key(timeKey(*l.ExpiresAt), idb(l.ID))); err != nil {
					return err
				}
			}
			if err := t.dropAll(bLicDevices, idb(id)); err != nil {
				return err
			}
			if err := t.purgeLeases(id); err != nil {
				return err
			}
			if err := t.del(bLicenses, id); err != nil {
				return err
			}
		}
		users, err := t.dropPrefix(bEndUsersEnv, env)
		if err != nil {
			return err
		}
		for _, id := range users {
			if err := t.dropAll(bSessionsUser, idb(id)); err != nil {
				return err
			}
			if err := t.del(bEndUsers, id); err != nil {
				return err
			}
		}
		devs, err := t.dropPrefix(bDevicesEnv, env)
		if err != nil {
			return err
		}
		for _, id := range devs {
			for _, sid := range t.all(bSessionsDevice, idb(id)) {
				if err := t.deleteSessionRecord(sid); err != nil {
					return err
				}
			}
			if err := t.dropAll(bSessionsDevice, idb(id)); err != nil {
				return err
			}
			if err := t.del(bDevices, id); err != nil {
				return err
			}
		}
		entries, err := t.dropPrefix(bAuditEnv, env)
		if err != nil {
			return err
		}
		for _, id := range entries {
			if err := t.del(bAudit, id); err != nil {
				return err
			}
		}
		for _, b := range [][]byte{bLicEnvStatus, bLicEnvPlan, bLicEnvPlanStatus, bEndUsersEnvStatus, bEndUsersEmail, bDevicesEnvStatus, bDevicesFP, bAuditEvent, bLicEnvUser} {
			if err := t.dropAll(b, env); err != nil {
				return err
			}
		}
		if err := t.dropNonces(e.ID); err != nil {
			return err
		}
		if err := t.tx.Bucket(bAppsPubKey).Delete([]byte(e.PublicKey)); err != nil {
			return err
		}
	}
	for _, pair := range []struct{ index, records []byte }{{bEntsApp, bEnts}, {bPlansApp, bPlans}, {bSecretsApp, bSecrets}} {
		recs, err := t.dropPrefix(pair.index, app)
		if err != nil {
			return err
		}
		for _, id := range recs {
			if bytes.Equal(pair.records, bSecrets) {
				s := new(store.AppSecret)
				if err := t.mustGet(bSecrets, id, "secret", s); err != nil {
					return err
				}
				if err := t.delUnique(bSecretsHash, []byte(s.Hash)); err != nil {
					return err
				}
			}
			if err := t.del(pair.records, id); err != nil {
				return err
			}
		}
	}
	if err := t.dropAll(bEntsKey, app); err != nil {
		return err
	}
	if err := t.delUnique(bAppsSlug, key(idb(a.OrgID), []byte(a.Slug))); err != nil {
		return err
	}
	if err := t.unindex(bAppsOrg, idb(a.OrgID), a.ID); err != nil {
		return err
	}
	return t.del(bApps, a.ID)
}

// dropAll deletes every key under prefix in bucket and every count kept for
// prefixes that start with it.
func (t *txn) dropAll(bucket, prefix []byte) error {
	if err := deletePrefix(t.tx.Bucket(bucket), prefix); err != nil {
		return err
	}
	return deletePrefix(t.tx.Bucket(bCounts), countKey(bucket, prefix))
}

// deleteSessionRecord removes a runtime session and its token indexes.
func (t *txn) deleteSessionRecord(id string) error {
	s := new(sessionRecord)
	ok, err := t.get(bSessions, id, s)
	if err != nil || !ok {
		return err
	}
	for _, h := range append([]string{s.RefreshHash}, s.RetiredRefresh...) {
		if err := t.delUnique(bSessionsRefresh, []byte(h)); err != nil {
			return err
		}
	}
	return t.del(bSessions, id)
}

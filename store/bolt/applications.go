package bolt

import (
	"bytes"

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
	if err := ref.Owns(a); err != nil {
		return nil, err
	}
	return a, nil
}

// scope loads the application of s and the environment it names.
func (t *txn) scope(s store.Scope) (*store.Application, *store.Environment, error) {
	return s.Resolve(t.app)
}

// Applications implements store.Tx.
func (t *txn) Applications(orgID string) ([]*store.Application, error) {
	return listAll[store.Application](t, bAppsOrg, idb(orgID), bApps)
}

// purgeApp removes an application and every record under it. Its webhook
// endpoints go first, with their deliveries and the events of the
// application still waiting (settled into deliveries that go with them),
// while the records the events' payloads read are still there.
func (t *txn) purgeApp(a *store.Application) error {
	for _, id := range t.all(bHooksApp, idb(a.ID)) {
		w, err := t.hook(a.ID, id)
		if err != nil {
			return err
		}
		if err := t.purgeWebhook(w); err != nil {
			return err
		}
	}
	t.hooks = nil // the endpoints read for the outbox are gone
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

package bolt

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// storage gives store.Service the file's transactions: the orchestration
// runs its changes through txn's primitives below, under the one writer.
type storage struct{ db *DB }

var (
	_ store.Storage      = storage{}
	_ store.PingPrecheck = storage{}
	_ store.Tx           = (*txn)(nil)
)

// Update implements store.Storage.
func (s storage) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.db.update(ctx, func(t *txn) error { return fn(t) })
}

// View implements store.Storage.
func (s storage) View(ctx context.Context, fn func(store.Tx) error) error {
	return s.db.view(ctx, func(t *txn) error { return fn(t) })
}

// Context implements store.Tx.
func (t *txn) Context() context.Context { return t.ctx }

// Now implements store.Tx.
func (t *txn) Now() time.Time { return t.now }

// Scope implements store.Tx.
func (t *txn) Scope(s store.Scope) (*store.Application, *store.Environment, error) { return t.scope(s) }

// Application implements store.Tx.
func (t *txn) Application(id string) (*store.Application, error) {
	a := new(store.Application)
	if err := t.mustGet(bApps, id, "application", a); err != nil {
		return nil, err
	}
	return a, nil
}

// License implements store.Tx.
func (t *txn) License(envID, id string) (*store.License, error) { return t.license(envID, id) }

// LockLicense implements store.Tx: one writer holds the whole file.
func (t *txn) LockLicense(envID, id string) (*store.License, error) { return t.license(envID, id) }

// PutLicense implements store.Tx.
func (t *txn) PutLicense(prev, next *store.License) error { return t.saveLicense(prev, next) }

// DueLicenses implements store.Tx. It walks the expiry index up to now; a
// key whose license is gone (a permanently deleted application) or no
// longer lapses is stale and dropped on the way.
func (t *txn) DueLicenses(limit int) ([]store.DueLicense, bool, error) {
	upTo := timeKey(t.now)
	c := t.tx.Bucket(bLicExpiry).Cursor()
	var keys [][]byte
	more := false
	for k, _ := c.First(); k != nil && bytes.Compare(k[:8], upTo) <= 0; k, _ = c.Next() {
		if len(keys) == limit {
			more = true
			break
		}
		keys = append(keys, clone(k))
	}
	var due []store.DueLicense
	orgs := map[string]string{}
	for _, k := range keys {
		l := new(store.License)
		found, err := t.get(bLicenses, ids(k[8:]), l)
		if err != nil {
			return nil, false, err
		}
		if !found || !l.Lapsed(t.now) {
			// saveLicense keeps only lapsing licenses in the index, at
			// their current expiry: a due key that finds none is stale.
			if err := t.tx.Bucket(bLicExpiry).Delete(k); err != nil {
				return nil, false, err
			}
			continue
		}
		org, ok := orgs[l.AppID]
		if !ok {
			a, err := t.Application(l.AppID)
			if err != nil {
				return nil, false, err
			}
			org, orgs[l.AppID] = a.OrgID, a.OrgID
		}
		due = append(due, store.DueLicense{OrgID: org, License: l})
	}
	return due, more, nil
}

// IsBound implements store.Tx.
func (t *txn) IsBound(licenseID, deviceID string) (bool, error) {
	return t.isBound(licenseID, deviceID), nil
}

// UnbindDevice implements store.Tx.
func (t *txn) UnbindDevice(l *store.License, deviceID string) (bool, error) {
	return t.unbindDevice(l, deviceID)
}

// Device implements store.Tx.
func (t *txn) Device(envID, id string) (*store.Device, error) { return t.device(envID, id) }

// LockDevice implements store.Tx: one writer holds the whole file.
func (t *txn) LockDevice(envID, id string) (*store.Device, error) { return t.device(envID, id) }

// PutDevice implements store.Tx.
func (t *txn) PutDevice(prev, next *store.Device) error { return t.saveDevice(prev, next) }

// RevokeSessions implements store.Tx.
func (t *txn) RevokeSessions(of store.SessionOwner, id, reason string) (int, error) {
	switch of {
	case store.OwnerLicense:
		return t.revokeLicenseSessions(id, reason)
	case store.OwnerDevice:
		return t.revokeSessions(bSessionsDevice, id, reason)
	case store.OwnerUser:
		return t.revokeSessions(bSessionsUser, id, reason)
	}
	return 0, fmt.Errorf("revoke sessions: no such owner %d", of)
}

// RevokeDeviceLicenseSessions implements store.Tx.
func (t *txn) RevokeDeviceLicenseSessions(deviceID, licenseID, reason string) (int, error) {
	return t.revokeListed(t.all(bSessionsDevice, idb(deviceID)), reason, licenseID)
}

// PassLock implements store.Tx: one process runs the passes.
func (t *txn) PassLock(string) (bool, error) { return true, nil }

// Audit implements store.Tx.
func (t *txn) Audit(ev store.AuditEvent) error { return t.audit(ev) }

// runtimeStorage gives store.RuntimeService the runtime's writes, through
// group commit.
type runtimeStorage struct{ r *Runtime }

// runtimeTxn is a txn of the runtime, which resolves clients through the
// runtime's caches.
type runtimeTxn struct {
	*txn
	r *Runtime
}

var (
	_ store.RuntimeStorage     = runtimeStorage{}
	_ store.ActivationPreparer = runtimeStorage{}
	_ store.RefreshPreparer    = runtimeStorage{}
	_ store.RuntimeTx          = runtimeTxn{}
)

// View implements store.RuntimeStorage.
func (s runtimeStorage) View(ctx context.Context, fn func(store.Tx) error) error {
	return storage{s.r.db}.View(ctx, fn)
}

// Update implements store.RuntimeStorage.
func (s runtimeStorage) Update(ctx context.Context, fn func(store.RuntimeTx) error) error {
	return s.r.commits.do(ctx, func(t *txn) error {
		denseAppends(t)
		return fn(runtimeTxn{txn: t, r: s.r})
	})
}

// ActiveApp implements store.RuntimeTx.
func (t runtimeTxn) ActiveApp(c store.RuntimeClient) (*store.RuntimeApp, error) {
	return t.r.activeApp(t.txn, c)
}

// LockLicenseByKey implements store.RuntimeTx, from the decode cache: the
// license is a copy (the orchestration replaces its fields, never modifies
// them in place), the plan the shared read-only record.
func (t runtimeTxn) LockLicenseByKey(envID, k string) (*store.License, *store.Plan, error) {
	cl, err := cachedGet[store.License](t.r.cache, t.txn, tagLicense, bLicenses, idb(t.licenseByKey(k)))
	if err != nil {
		return nil, nil, err
	}
	if cl == nil || cl.EnvID != envID {
		return nil, nil, store.NotFound("license")
	}
	l := *cl
	p, err := cachedGet[store.Plan](t.r.cache, t.txn, tagPlan, bPlans, idb(l.PlanID))
	if err != nil {
		return nil, nil, err
	}
	return &l, p, nil
}

// LockDeviceByFingerprint implements store.RuntimeTx, from the decode
// cache; the device is a copy.
func (t runtimeTxn) LockDeviceByFingerprint(envID, fp, licenseID string) (*store.Device, bool, error) {
	id := t.lookup(bDevicesFP, key(idb(envID), []byte(fp)))
	if id == "" {
		return nil, false, nil
	}
	cd, err := cachedGet[store.Device](t.r.cache, t.txn, tagDevice, bDevices, idb(id))
	if err != nil {
		return nil, false, err
	}
	if cd == nil || cd.EnvID != envID {
		return nil, false, store.NotFound("device")
	}
	d := *cd
	return &d, t.isBound(licenseID, id), nil
}

// ConsumeNonce implements store.RuntimeTx.
func (t runtimeTxn) ConsumeNonce(ra *store.RuntimeApp, rp store.Replay, kind string) error {
	return t.r.consumeNonce(t.txn, ra, rp, kind)
}

// SessionUser implements store.RuntimeTx.
func (t runtimeTxn) SessionUser(_ store.RuntimeClient, ra *store.RuntimeApp, token string) (*store.EndUser, error) {
	s, err := t.r.findByAccess(t.txn, token, store.HashSecret(token))
	if err != nil {
		return nil, err
	}
	reason, v, err := t.r.cascade(t.txn, ra, s, true)
	if err != nil {
		return nil, err
	}
	if reason != "" || v.user == nil {
		return nil, store.ErrEndUserToken()
	}
	return v.user, nil
}

// ReadLogin implements store.RuntimeStorage: one read transaction.
func (s runtimeStorage) ReadLogin(ctx context.Context, c store.RuntimeClient, in store.RuntimeLoginInput) (store.LoginCandidate, error) {
	var out store.LoginCandidate
	err := s.r.db.view(ctx, func(t *txn) error {
		ra, err := s.r.activeApp(t, c)
		if err != nil {
			return err
		}
		out.Replay = s.r.replayed(t, ra.Env.ID, in.Replay)
		u, err := t.EndUserByEmail(ra.Env.ID, in.Email)
		if store.ErrorCode(err) == store.ECodeNotFound {
			return nil
		}
		if err == nil {
			out.PasswordHash, out.UserID = u.PasswordHash, u.ID
		}
		return err
	})
	return out, err
}

// UserEntitlements implements store.RuntimeTx.
func (t runtimeTxn) UserEntitlements(envID, userID, deviceID string) ([]string, error) {
	ents, _, err := t.r.userEntitlements(t.txn, envID, userID, deviceID)
	return ents, err
}

// LicenseEntitlements implements store.RuntimeTx.
func (t runtimeTxn) LicenseEntitlements(l *store.License) ([]string, error) {
	ents, err := t.r.licenseEntitlements(t.txn, l, nil)
	if err != nil {
		return nil, err
	}
	return store.KeySet(ents), nil
}

// InsertDevice implements store.RuntimeTx: with one writer, no other
// transaction can have written the fingerprint meanwhile.
func (t runtimeTxn) InsertDevice(d *store.Device) (bool, error) {
	return true, t.saveDevice(nil, d)
}

// BindDevice implements store.RuntimeTx.
func (t runtimeTxn) BindDevice(l *store.License, deviceID string) error {
	return t.bindDevice(l, deviceID, t.now)
}

// BoundDevices implements store.RuntimeTx.
func (t runtimeTxn) BoundDevices(licenseID string) ([]*store.Device, error) {
	var out []*store.Device
	prefix := idb(licenseID)
	c := t.tx.Bucket(bLicDevices).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != 32 {
			return nil, fmt.Errorf("%s/%x: a binding key of %d bytes", bLicDevices, k, len(k))
		}
		d, err := cachedGet[store.Device](t.r.cache, t.txn, tagDevice, bDevices, k[16:])
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, fmt.Errorf("%s/%x: no such device", bLicDevices, k)
		}
		out = append(out, d)
	}
	return out, nil
}

// OpenSession implements store.RuntimeTx, with the access token presigned
// by PrepareActivation when it says what the transaction decided.
func (t runtimeTxn) OpenSession(ra *store.RuntimeApp, s store.SessionSubject, seed store.SessionSeed) (*store.RuntimeSession, error) {
	return t.r.openSession(t.txn, ra, s, tokenSeedOf(seed))
}

// ListBoundDevices implements store.RuntimeTx.
func (t runtimeTxn) ListBoundDevices(envID, licenseID string, limit int) ([]store.LicenseDevice, error) {
	return t.boundDevices(envID, licenseID, 0, limit)
}

// SessionByRefresh implements store.RuntimeTx, from the decode cache.
func (t runtimeTxn) SessionByRefresh(c store.RuntimeClient, token string) (*store.RuntimeApp, *store.SessionView, error) {
	ra, err := t.r.resolve(t.txn, c)
	if err != nil {
		return nil, nil, err
	}
	s, err := cachedGet[sessionRecord](t.r.cache, t.txn, tagSession, bSessions, t.refreshSessionID(token))
	if err != nil {
		return nil, nil, err
	}
	v, err := t.r.records(t.txn, s, true)
	return ra, &v, err
}

// SessionByAccess implements store.RuntimeTx, from the decode cache.
func (t runtimeTxn) SessionByAccess(c store.RuntimeClient, token string) (*store.RuntimeApp, *store.SessionView, error) {
	ra, err := t.r.resolve(t.txn, c)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.r.findByAccess(t.txn, token, store.HashSecret(token))
	if err != nil {
		return nil, nil, err
	}
	v, err := t.r.records(t.txn, s, true)
	return ra, &v, err
}

// SessionEntitlements implements store.RuntimeTx.
func (t runtimeTxn) SessionEntitlements(v *store.SessionView) ([]string, error) {
	ents, _, err := t.r.entitlements(t.txn, &sessionView{s: (*sessionRecord)(v.Session), lic: v.License})
	return ents, err
}

// SignAccess implements store.RuntimeTx, with the token PrepareRefresh
// presigned when it says what the transaction decided.
func (t runtimeTxn) SignAccess(ra *store.RuntimeApp, sid string, s store.SessionSubject, seed store.SessionSeed) (string, time.Time, error) {
	ts := tokenSeedOf(seed)
	ts.SessionID = sid
	return t.r.token(t.txn, ra, s, ts)
}

// RotateSession implements store.RuntimeTx: with one writer, no other
// transaction can have rotated the session meanwhile. The retired hashes
// the rotation forgot leave the index of the refresh tokens of the form
// before `<session id>.<secret>`.
func (t runtimeTxn) RotateSession(prev, next *store.Session) (bool, error) {
	for _, h := range prev.RetiredRefresh {
		if !slices.Contains(next.RetiredRefresh, h) {
			if err := t.delUnique(bSessionsRefresh, []byte(h)); err != nil {
				return false, err
			}
		}
	}
	return true, t.put(bSessions, next.ID, (*sessionRecord)(next))
}

// LicenseKeysTaken implements store.Tx: one unique-index get a key.
func (t *txn) LicenseKeysTaken(keys []string) (map[string]bool, error) {
	taken := map[string]bool{}
	for _, k := range keys {
		if t.licenseByKey(k) != "" {
			taken[k] = true
		}
	}
	return taken, nil
}

// InsertLicenses implements store.Tx.
func (t *txn) InsertLicenses(_ *store.Application, items []*store.LicenseItem, created store.AuditEvent) error {
	for _, it := range items {
		if err := t.saveLicense(nil, &it.License); err != nil {
			return err
		}
		created.Target = store.Target{Type: "license", ID: it.ID}
		if err := t.audit(created); err != nil {
			return err
		}
	}
	return nil
}

// LockPlan implements store.Tx: one writer holds the whole file.
func (t *txn) LockPlan(appID, id string) (*store.Plan, error) { return t.plan(appID, id) }

// LockEntitlement implements store.Tx: one writer holds the whole file.
func (t *txn) LockEntitlement(appID, id string) (*store.Entitlement, error) {
	return t.entitlement(appID, id)
}

// LockEndUser implements store.Tx: one writer holds the whole file.
func (t *txn) LockEndUser(envID, id string) (*store.EndUser, error) { return t.endUser(envID, id) }

// PutEndUser implements store.Tx.
func (t *txn) PutEndUser(prev, next *store.EndUser) error { return t.saveEndUser(prev, next) }

// OrgExists implements store.Tx.
func (t *txn) OrgExists(orgID string) error {
	return t.mustGet(bOrgs, orgID, "organization", new(store.Organization))
}

// InsertMember implements store.Tx.
func (t *txn) InsertMember(m *store.Member) error { return t.insertMember(m) }

// LicensePlan implements store.Tx.
func (t *txn) LicensePlan(l *store.License) (*store.Plan, error) { return t.runtime().leasePlan(t, l) }

// Runtime implements store.Tx.
func (t *txn) Runtime() store.RuntimeTx { return runtimeTxn{txn: t, r: t.runtime()} }

// EndUserIDByEmail implements store.Tx.
func (t *txn) EndUserIDByEmail(envID, email string) (string, error) {
	return t.endUserIDByEmail(envID, email), nil
}

// runtime is a runtime view for one primitive of the management API: its
// decode cache checks every record against the stored bytes, so a fresh
// one only costs the decoding.
func (t *txn) runtime() *Runtime { return &Runtime{db: t.db, cache: newDecodeCache()} }

// JoinOrg implements store.Tx.
func (t *txn) JoinOrg(m *store.Member) error {
	if err := t.put(bMembers, m.ID, m); err != nil {
		return err
	}
	return t.index(bMembersOrg, idb(m.OrgID), m.ID)
}

// LockOrgMembers implements store.Tx: one writer holds the whole file.
func (t *txn) LockOrgMembers(orgID string) ([]*store.Member, error) {
	return listAll[store.Member](t, bMembersOrg, idb(orgID), bMembers)
}

// DeleteMember implements store.Tx.
func (t *txn) DeleteMember(m *store.Member) error {
	if err := t.del(bMembers, m.ID); err != nil {
		return err
	}
	if err := t.delUnique(bMembersEmail, []byte(m.Email)); err != nil {
		return err
	}
	if m.OrgID != "" {
		if err := t.unindex(bMembersOrg, idb(m.OrgID), m.ID); err != nil {
			return err
		}
	}
	return t.del(bOnboarding, m.ID)
}

// MemberByEmail implements store.Tx.
func (t *txn) MemberByEmail(email string) (*store.Member, error) {
	id := t.lookup(bMembersEmail, []byte(email))
	if id == "" {
		return nil, nil
	}
	return t.LockMember(id)
}

// LockMember implements store.Tx: one writer holds the whole file.
func (t *txn) LockMember(id string) (*store.Member, error) {
	m := new(store.Member)
	if ok, err := t.get(bMembers, id, m); err != nil || !ok {
		return nil, err
	}
	return m, nil
}

// PutMember implements store.Tx.
func (t *txn) PutMember(m *store.Member) error { return t.put(bMembers, m.ID, m) }

// LockOrg implements store.Tx: one writer holds the whole file.
func (t *txn) LockOrg(id string) (*store.Organization, error) {
	o := new(store.Organization)
	if err := t.mustGet(bOrgs, id, "organization", o); err != nil {
		return nil, err
	}
	return o, nil
}

// PutOrg implements store.Tx.
func (t *txn) PutOrg(o *store.Organization) error { return t.put(bOrgs, o.ID, o) }

// ActAs implements store.Tx and, promoted, store.RuntimeTx.
func (t *txn) ActAs(typ, id string) { t.ctx = store.ActingAs(t.ctx, typ, id) }

// EndDashboardSessions implements store.Tx.
func (t *txn) EndDashboardSessions(memberID string) (int, error) { return t.endDashSessions(memberID) }

// App implements store.Tx.
func (t *txn) App(ref store.AppRef) (*store.Application, error) { return t.app(ref) }

// CountWebhooks implements store.Tx.
func (t *txn) CountWebhooks(appID string) (int, error) { return t.count(bHooksApp, idb(appID)), nil }

// LockWebhook implements store.Tx.
func (t *txn) LockWebhook(appID, id string) (*store.Webhook, error) {
	w, err := t.hook(appID, id)
	if err != nil {
		return nil, err
	}
	return w.Domain(), nil
}

// hook loads the record of an endpoint of application appID.
func (t *txn) hook(appID, id string) (*storedoc.Webhook, error) {
	w := new(storedoc.Webhook)
	if err := t.mustGet(bHooks, id, "webhook", w); err != nil {
		return nil, err
	}
	if w.AppID != appID {
		return nil, store.NotFound("webhook")
	}
	return w, nil
}

// InsertWebhook implements store.Tx.
func (t *txn) InsertWebhook(w *store.Webhook) error {
	t.hooks = nil
	if err := t.put(bHooks, w.ID, storedoc.WebhookOf(w)); err != nil {
		return err
	}
	if err := t.index(bHooksApp, idb(w.AppID), w.ID); err != nil {
		return err
	}
	return t.index(bHooksOrg, idb(w.OrgID), w.ID)
}

// PutWebhook implements store.Tx.
func (t *txn) PutWebhook(w *store.Webhook) error {
	if _, err := t.hook(w.AppID, w.ID); err != nil {
		return err
	}
	t.hooks = nil
	return t.put(bHooks, w.ID, storedoc.WebhookOf(w))
}

// PauseDeliveries implements store.Tx: the pending deliveries leave the due index.
func (t *txn) PauseDeliveries(webhookID string) error {
	return t.eachPending(webhookID, t.undue)
}

// ResumeDeliveries implements store.Tx.
func (t *txn) ResumeDeliveries(webhookID string) error {
	return t.eachPending(webhookID, func(d *deliveryRecord) error {
		if err := t.undue(d); err != nil {
			return err
		}
		now := t.now
		d.NextAttemptAt = &now
		if err := t.due(d); err != nil {
			return err
		}
		return t.put(bDeliveries, d.ID, d)
	})
}

// eachPending calls fn on every pending delivery of an endpoint.
func (t *txn) eachPending(webhookID string, fn func(*deliveryRecord) error) error {
	for _, did := range t.all(bDelivHookStatus, key(idb(webhookID), str(store.DeliveryPending))) {
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, did, "delivery", d); err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// DeleteWebhook implements store.Tx.
func (t *txn) DeleteWebhook(w *store.Webhook) error {
	r, err := t.hook(w.AppID, w.ID)
	if err != nil {
		return err
	}
	return t.purgeWebhook(r)
}

// LockApp implements store.Tx: one writer holds the whole file.
func (t *txn) LockApp(ref store.AppRef) (*store.Application, error) { return t.app(ref) }

// LockAppForPurge implements store.Tx: one writer holds the whole file.
func (t *txn) LockAppForPurge(ref store.AppRef) (*store.Application, error) { return t.app(ref) }

// InsertApplication implements store.Tx: the slug index decides, under
// the one writer.
func (t *txn) InsertApplication(a *store.Application) error {
	slugKey := key(idb(a.OrgID), []byte(a.Slug))
	if t.lookup(bAppsSlug, slugKey) != "" {
		return store.ErrSlugTaken(a.Slug)
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
	return nil
}

// PutApplication implements store.Tx.
func (t *txn) PutApplication(a *store.Application) error { return t.put(bApps, a.ID, a) }

// PurgeApplication implements store.Tx.
func (t *txn) PurgeApplication(a *store.Application) error { return t.purgeApp(a) }

// LockEntitlementForDelete implements store.Tx: one writer holds the whole
// file.
func (t *txn) LockEntitlementForDelete(appID, id string) (*store.Entitlement, error) {
	return t.entitlement(appID, id)
}

// InsertEntitlement implements store.Tx: the key index decides, under the
// one writer.
func (t *txn) InsertEntitlement(e *store.Entitlement) error {
	keyIdx := key(idb(e.AppID), []byte(e.Key))
	if t.lookup(bEntsKey, keyIdx) != "" {
		return store.ErrEntitlementKeyTaken(e.Key)
	}
	if err := t.put(bEnts, e.ID, e); err != nil {
		return err
	}
	if err := t.index(bEntsApp, idb(e.AppID), e.ID); err != nil {
		return err
	}
	return t.setUnique(bEntsKey, keyIdx, e.ID)
}

// DeleteEntitlement implements store.Tx.
func (t *txn) DeleteEntitlement(e *store.Entitlement) error {
	if err := t.del(bEnts, e.ID); err != nil {
		return err
	}
	if err := t.unindex(bEntsApp, idb(e.AppID), e.ID); err != nil {
		return err
	}
	return t.delUnique(bEntsKey, key(idb(e.AppID), []byte(e.Key)))
}

// LockPlans implements store.Tx: one writer holds the whole file.
func (t *txn) LockPlans(appID string) ([]*store.Plan, error) {
	return listAll[store.Plan](t, bPlansApp, idb(appID), bPlans)
}

// PutPlan implements store.Tx.
func (t *txn) PutPlan(p *store.Plan) error { return t.savePlan(p) }

// LockLicensesNaming implements store.Tx: one raw read a license of the
// application, a byte search for the id (ids are stored as their 16
// bytes); only the licenses holding it are decoded.
func (t *txn) LockLicensesNaming(a *store.Application, entitlementID string) ([]*store.License, error) {
	needle := idb(entitlementID)
	var out []*store.License
	for _, env := range a.Environments {
		for _, lid := range t.all(bLicEnv, idb(env.ID)) {
			if !bytes.Contains(t.tx.Bucket(bLicenses).Get(idb(lid)), needle) {
				continue
			}
			l, err := t.license(env.ID, lid)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// InsertAPIKey implements store.Tx.
func (t *txn) InsertAPIKey(k *store.APIKey) error {
	if err := t.put(bAPIKeys, k.ID, k); err != nil {
		return err
	}
	if err := t.index(bAPIKeysOrg, idb(k.OrgID), k.ID); err != nil {
		return err
	}
	return t.tx.Bucket(bAPIKeysHash).Put([]byte(k.Hash), idb(k.ID))
}

// LockAPIKey implements store.Tx: one writer holds the whole file.
func (t *txn) LockAPIKey(orgID, id string) (*store.APIKey, error) {
	k := new(store.APIKey)
	if err := t.mustGet(bAPIKeys, id, "api key", k); err != nil {
		return nil, err
	}
	if k.OrgID != orgID {
		return nil, store.NotFound("api key")
	}
	return k, nil
}

// PutAPIKey implements store.Tx.
func (t *txn) PutAPIKey(k *store.APIKey) error { return t.put(bAPIKeys, k.ID, k) }

// InsertAppSecret implements store.Tx.
func (t *txn) InsertAppSecret(s *store.AppSecret) error {
	if err := t.put(bSecrets, s.ID, s); err != nil {
		return err
	}
	if err := t.index(bSecretsApp, idb(s.AppID), s.ID); err != nil {
		return err
	}
	return t.tx.Bucket(bSecretsHash).Put([]byte(s.Hash), idb(s.ID))
}

// LockAppSecret implements store.Tx: one writer holds the whole file.
func (t *txn) LockAppSecret(appID, id string) (*store.AppSecret, error) {
	s := new(store.AppSecret)
	if err := t.mustGet(bSecrets, id, "secret", s); err != nil {
		return nil, err
	}
	if s.AppID != appID {
		return nil, store.NotFound("secret")
	}
	return s, nil
}

// PutAppSecret implements store.Tx.
func (t *txn) PutAppSecret(s *store.AppSecret) error { return t.put(bSecrets, s.ID, s) }

// InsertOrganization implements store.Tx: the slug index decides, under
// the one writer.
func (t *txn) InsertOrganization(o *store.Organization) error {
	if t.lookup(bOrgsSlug, []byte(o.Slug)) != "" {
		return store.ErrOrgSlugTaken(o.Slug)
	}
	if err := t.put(bOrgs, o.ID, o); err != nil {
		return err
	}
	return t.setUnique(bOrgsSlug, []byte(o.Slug), o.ID)
}

// LockPlanForUpdate implements store.Tx: one writer holds the whole file.
func (t *txn) LockPlanForUpdate(appID, id string) (*store.Plan, error) { return t.plan(appID, id) }

// InsertPlan implements store.Tx.
func (t *txn) InsertPlan(p *store.Plan) error {
	if err := t.savePlan(p); err != nil {
		return err
	}
	return t.index(bPlansApp, idb(p.AppID), p.ID)
}

// LockEntitlements implements store.Tx: one get an id, under the one
// writer.
func (t *txn) LockEntitlements(appID string, ids []string) (map[string]*store.Entitlement, error) {
	out := make(map[string]*store.Entitlement, len(ids))
	for _, id := range ids {
		e, err := t.entitlement(appID, id)
		switch {
		case store.ErrorCode(err) == store.ECodeNotFound:
		case err != nil:
			return nil, err
		default:
			out[id] = e
		}
	}
	return out, nil
}

// CountPlanInUse implements store.Tx: kept counts of the index of licenses
// by environment, plan and status.
func (t *txn) CountPlanInUse(a *store.Application, planID string) (int, error) {
	return t.planInUse(a, planID), nil
}

// DeletePlan implements store.Tx.
func (t *txn) DeletePlan(p *store.Plan) error {
	if err := t.del(bPlans, p.ID); err != nil {
		return err
	}
	return t.unindex(bPlansApp, idb(p.AppID), p.ID)
}

// APIKeyByHash implements store.Storage.
func (s storage) APIKeyByHash(ctx context.Context, hash string) (*store.APIKey, error) {
	return credentialByHash[store.APIKey](ctx, s.db, bAPIKeysHash, bAPIKeys, hash)
}

// AppSecretByHash implements store.Storage.
func (s storage) AppSecretByHash(ctx context.Context, hash string) (*store.AppSecret, error) {
	return credentialByHash[store.AppSecret](ctx, s.db, bSecretsHash, bSecrets, hash)
}

// credentialByHash reads the record of records whose hash index, hashes,
// holds hash.
func credentialByHash[T any](ctx context.Context, db *DB, hashes, records []byte, hash string) (*T, error) {
	rec := new(T)
	err := db.view(ctx, func(t *txn) error {
		id := t.lookup(hashes, []byte(hash))
		if id == "" {
			return store.NotFound("credential")
		}
		return t.mustGet(records, id, "credential", rec)
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// Delivery implements store.Tx.
func (t *txn) Delivery(id string) (*store.Delivery, error) {
	d := new(deliveryRecord)
	if found, err := t.get(bDeliveries, id, d); err != nil || !found {
		return nil, err
	}
	return d.domain(), nil
}

// LockDelivery implements store.Tx.
func (t *txn) LockDelivery(webhookID, id string) (*store.Delivery, error) {
	d := new(deliveryRecord)
	if err := t.mustGet(bDeliveries, id, "delivery", d); err != nil {
		return nil, err
	}
	if d.WebhookID != webhookID {
		return nil, store.NotFound("delivery")
	}
	return d.domain(), nil
}

// LockAttempted implements store.Tx.
func (t *txn) LockAttempted(id string) (*store.Delivery, *store.Webhook, error) {
	d, err := t.Delivery(id)
	if err != nil || d == nil {
		return nil, nil, err
	}
	w := new(storedoc.Webhook)
	if err := t.mustGet(bHooks, d.WebhookID, "webhook", w); err != nil {
		return nil, nil, err
	}
	return d, w.Domain(), nil
}

// PutDelivery implements store.Tx. The record keeps its payload, its own
// or the one it shares; the due indexes follow the stored record's time.
func (t *txn) PutDelivery(_, next *store.Delivery, queued bool) error {
	r := new(deliveryRecord)
	if err := t.mustGet(bDeliveries, next.ID, "delivery", r); err != nil {
		return err
	}
	prev := *r
	if err := t.undue(&prev); err != nil {
		return err
	}
	r.Status, r.Attempts, r.NextAttemptAt, r.DoneAt = next.Status, next.Attempts, next.NextAttemptAt, next.DoneAt
	r.ResponseStatus, r.LastError, r.LastLatency, r.LastAttemptAt = next.ResponseStatus, next.LastError, next.LastLatency, next.LastAttemptAt
	if err := t.saveDelivery(&prev, r); err != nil {
		return err
	}
	if !queued || r.NextAttemptAt == nil {
		return nil
	}
	if !r.NextAttemptAt.After(t.now) && !t.queued {
		t.queued = true
		t.tx.OnCommit(t.db.wake)
	}
	return t.due(r)
}

// EndLease implements store.Tx: the lease table is in memory, and the
// lease ends when the attempt's record commits.
func (t *txn) EndLease(id string) error {
	t.tx.OnCommit(func() { t.db.leases.release(id) })
	return nil
}

// PingRoom implements store.PingPrecheck: the endpoint as a read
// transaction sees it, and the lease table.
func (s storage) PingRoom(ctx context.Context, ref store.AppRef, webhookID string, now time.Time, c store.Claim) error {
	var w *storedoc.Webhook
	if err := s.db.view(ctx, func(t *txn) (err error) {
		w, err = t.webhook(ref, webhookID)
		return err
	}); err != nil {
		return err
	}
	lt := &s.db.leases
	lt.mu.Lock()
	perHook, perApp := lt.loads(now, c.Owner)
	lt.mu.Unlock()
	return c.AdmitPing(w.Domain(), perHook[w.ID], perApp[w.AppID])
}

// InsertPing implements store.Tx. The lease is taken, in the table claims
// read, before the delivery is written, and given back when the
// transaction does not commit.
func (t *txn) InsertPing(w *store.Webhook, d *store.Delivery, now time.Time, c store.Claim) error {
	lt := &t.db.leases
	lt.mu.Lock()
	perHook, perApp := lt.loads(now, c.Owner)
	if err := c.AdmitPing(w, perHook[w.ID], perApp[w.AppID]); err != nil {
		lt.mu.Unlock()
		return err
	}
	lt.byID[d.ID] = lease{owner: c.Owner, hook: w.ID, app: w.AppID, until: now.Add(c.Lease)}
	lt.mu.Unlock()
	t.undo = append(t.undo, func() { lt.release(d.ID) })
	_, err := t.newDelivery(d.ID, storedoc.WebhookOf(w), d.Event, d.Body, *d.NextAttemptAt, false)
	return err
}

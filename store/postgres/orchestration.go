package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// storage gives store.Service the database's transactions: the
// orchestration runs its changes through txn's primitives below, each
// retried whole on a serialization failure or a deadlock.
type storage struct{ db *DB }

var (
	_ store.Storage = storage{}
	_ store.Tx      = (*txn)(nil)
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

// Scope implements store.Tx: in a write the application's row is locked
// (txn.app).
func (t *txn) Scope(s store.Scope) (*store.Application, *store.Environment, error) { return t.scope(s) }

// Application implements store.Tx.
func (t *txn) Application(id string) (*store.Application, error) {
	return mustDoc[store.Application](t, "application", `SELECT doc FROM apps WHERE id = $1`, uuidOrNil(id))
}

// License implements store.Tx.
func (t *txn) License(envID, id string) (*store.License, error) { return t.license(envID, id) }

// LockLicense implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockLicense(envID, id string) (*store.License, error) { return t.lockLicense(envID, id) }

// PutLicense implements store.Tx.
func (t *txn) PutLicense(_, next *store.License) error { return t.saveLicense("", next, false) }

// DueLicenses implements store.Tx: the lapsed licenses' rows, locked.
func (t *txn) DueLicenses(limit int) ([]store.DueLicense, bool, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT org_id::text, doc, devices_count FROM licenses
		WHERE expires_at <= $1 AND status IN ('active', 'inactive') ORDER BY expires_at, id LIMIT $2 FOR UPDATE`, t.now, limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var due []store.DueLicense
	for rows.Next() {
		var org string
		var raw []byte
		var n int
		if err := rows.Scan(&org, &raw, &n); err != nil {
			return nil, false, err
		}
		l, err := decodeLicense(raw, n)
		if err != nil {
			return nil, false, err
		}
		due = append(due, store.DueLicense{OrgID: org, License: l})
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(due) > limit {
		return due[:limit], true, nil
	}
	return due, false, nil
}

// IsBound implements store.Tx.
func (t *txn) IsBound(licenseID, deviceID string) (bool, error) {
	return t.isBound(licenseID, deviceID)
}

// UnbindDevice implements store.Tx: the binding's row and the license's
// devices_count column go together.
func (t *txn) UnbindDevice(l *store.License, deviceID string) (bool, error) {
	ok, err := t.unbindDevice(l.ID, deviceID)
	if ok {
		l.DevicesCount--
	}
	return ok, err
}

// Device implements store.Tx.
func (t *txn) Device(envID, id string) (*store.Device, error) { return t.device(envID, id) }

// LockDevice implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockDevice(envID, id string) (*store.Device, error) { return t.lockDevice(envID, id) }

// PutDevice implements store.Tx.
func (t *txn) PutDevice(_, next *store.Device) error { return t.saveDevice(next, false) }

// RevokeSessions implements store.Tx.
func (t *txn) RevokeSessions(of store.SessionOwner, id, reason string) (int, error) {
	column, err := ownerColumn(of)
	if err != nil {
		return 0, err
	}
	return t.revokeSessions(column, id, reason)
}

// ownerColumn is the column of the sessions naming an owner.
func ownerColumn(of store.SessionOwner) (string, error) {
	switch of {
	case store.OwnerLicense:
		return "license_id", nil
	case store.OwnerDevice:
		return "device_id", nil
	case store.OwnerUser:
		return "user_id", nil
	}
	return "", fmt.Errorf("no such owner of sessions: %d", of)
}

// RevokeDeviceLicenseSessions implements store.Tx.
func (t *txn) RevokeDeviceLicenseSessions(deviceID, licenseID, reason string) (int, error) {
	n, err := t.exec(`UPDATE sessions SET revoked_at = $3, revoke_reason = $4
		WHERE device_id = $1 AND license_id = $2 AND revoked_at IS NULL`, deviceID, licenseID, t.now, reason)
	return int(n), err
}

// PassLock implements store.Tx: a transaction-scoped advisory lock.
func (t *txn) PassLock(pass string) (bool, error) { return t.passLock(pass) }

// Audit implements store.Tx.
func (t *txn) Audit(ev store.AuditEvent) error { return t.audit(ev) }

// runtimeStorage gives store.RuntimeService the runtime's writes.
type runtimeStorage struct{ r *Runtime }

// runtimeTxn is a txn of the runtime, which resolves clients as the
// runtime does. found is the license LockLicenseByKey read, whose
// entitlement keys came in the same statement.
type runtimeTxn struct {
	*txn
	r     *Runtime
	found *rtLicense
	// view is the session SessionByRefresh or SessionByAccess read last,
	// with the entitlement keys that came in the same statement.
	view *sessionView
}

var (
	_ store.RuntimeStorage = runtimeStorage{}
	_ store.RuntimeTx      = (*runtimeTxn)(nil)
)

// View implements store.RuntimeStorage.
func (s runtimeStorage) View(ctx context.Context, fn func(store.Tx) error) error {
	return storage{s.r.db}.View(ctx, fn)
}

// Update implements store.RuntimeStorage.
func (s runtimeStorage) Update(ctx context.Context, fn func(store.RuntimeTx) error) error {
	return s.r.db.update(ctx, func(t *txn) error { return fn(&runtimeTxn{txn: t, r: s.r}) })
}

// ActiveApp implements store.RuntimeTx.
func (t *runtimeTxn) ActiveApp(c store.RuntimeClient) (*store.RuntimeApp, error) {
	return t.r.activeApp(t.txn, c)
}

// LockLicenseByKey implements store.RuntimeTx: the license's row, locked,
// its plan and its entitlement keys in one statement.
func (t *runtimeTxn) LockLicenseByKey(envID, k string) (*store.License, *store.Plan, error) {
	found, err := t.lockLicenseByKey(envID, k)
	if err != nil {
		return nil, nil, err
	}
	t.found = found
	l := *found.l
	return &l, found.plan, nil
}

// LockDeviceByFingerprint implements store.RuntimeTx: the device's row,
// locked, and its binding in one statement.
func (t *runtimeTxn) LockDeviceByFingerprint(envID, fp, licenseID string) (*store.Device, bool, error) {
	return t.lockedDeviceByFingerprint(envID, fp, licenseID)
}

// ConsumeNonce implements store.RuntimeTx.
func (t *runtimeTxn) ConsumeNonce(ra *store.RuntimeApp, rp store.Replay, kind string) error {
	return t.r.consumeNonce(t.txn, ra, rp, kind)
}

// SessionUser implements store.RuntimeTx: the session and its cascade in
// one statement.
func (t *runtimeTxn) SessionUser(c store.RuntimeClient, _ *store.RuntimeApp, token string) (*store.EndUser, error) {
	v, err := t.r.view(t.ctx, t.tx, c, rtByAccess, store.HashSecret(token), t.now)
	if err != nil {
		return nil, err
	}
	if v.cascade(t.now, true) != "" || v.user == nil {
		return nil, store.ErrEndUserToken()
	}
	return v.user, nil
}

// ReadLogin implements store.RuntimeStorage: one statement.
func (s runtimeStorage) ReadLogin(ctx context.Context, c store.RuntimeClient, in store.RuntimeLoginInput) (store.LoginCandidate, error) {
	hash, userID, replay, err := s.r.loginRead(ctx, c, in)
	return store.LoginCandidate{UserID: userID, PasswordHash: hash, Replay: replay}, err
}

// UserEntitlements implements store.RuntimeTx: one statement.
func (t *runtimeTxn) UserEntitlements(envID, userID, deviceID string) ([]string, error) {
	return t.userKeys(envID, userID, deviceID)
}

// LicenseEntitlements implements store.RuntimeTx: the keys LockLicenseByKey
// read with the license (nothing in between changes them), else a query.
func (t *runtimeTxn) LicenseEntitlements(l *store.License) ([]string, error) {
	if t.found != nil && t.found.l.ID == l.ID {
		return t.found.keys, nil
	}
	var keys []string
	err := t.tx.QueryRow(t.ctx, `SELECT `+rtKeysExpr("l.doc", "p.doc")+` FROM licenses l LEFT JOIN plans p ON p.id = l.plan_id WHERE l.id = $1`, l.ID).Scan(&keys)
	if err != nil {
		return nil, mapError(err)
	}
	return store.KeySet(keys), nil
}

// InsertDevice implements store.RuntimeTx.
func (t *runtimeTxn) InsertDevice(d *store.Device) (bool, error) { return t.insertNewDevice(d) }

// BindDevice implements store.RuntimeTx.
func (t *runtimeTxn) BindDevice(l *store.License, deviceID string) error {
	added, err := t.bindDevice(l.ID, deviceID)
	if added {
		l.DevicesCount++
	}
	return err
}

// BoundDevices implements store.RuntimeTx.
func (t *runtimeTxn) BoundDevices(licenseID string) ([]*store.Device, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT d.doc FROM license_devices ld JOIN devices d ON d.id = ld.device_id WHERE ld.license_id = $1`, licenseID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.Device
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		d, err := decode[store.Device](raw)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// OpenSession implements store.RuntimeTx.
func (t *runtimeTxn) OpenSession(ra *store.RuntimeApp, s store.SessionSubject, seed store.SessionSeed) (*store.RuntimeSession, error) {
	return t.r.openSession(t.txn, ra, s, tokenSeed{SessionID: seed.SessionID, DeviceID: seed.DeviceID, Secret: seed.Secret, JTI: seed.JTI})
}

// ListBoundDevices implements store.RuntimeTx.
func (t *runtimeTxn) ListBoundDevices(envID, licenseID string, limit int) ([]store.LicenseDevice, error) {
	return t.boundDevices(envID, licenseID, limit)
}

// SessionByRefresh implements store.RuntimeTx: the application, the
// session and its cascade in one statement.
func (t *runtimeTxn) SessionByRefresh(c store.RuntimeClient, token string) (*store.RuntimeApp, *store.SessionView, error) {
	where, key := rtByLegacyRefesh, any(store.HashSecret(token))
	if sid, _, ok := strings.Cut(token, "."); ok {
		where, key = rtByID, uuidOrNil(sid)
	}
	return t.readView(c, where, key)
}

// SessionByAccess implements store.RuntimeTx: the application, the
// session and its cascade in one statement.
func (t *runtimeTxn) SessionByAccess(c store.RuntimeClient, token string) (*store.RuntimeApp, *store.SessionView, error) {
	return t.readView(c, rtByAccess, store.HashSecret(token))
}

// readView reads a view and keeps it for SessionEntitlements.
func (t *runtimeTxn) readView(c store.RuntimeClient, where string, key any) (*store.RuntimeApp, *store.SessionView, error) {
	v, err := t.r.view(t.ctx, t.tx, c, where, key, t.now)
	if err != nil {
		return nil, nil, err
	}
	t.view = v
	return v.ra, v.public(), nil
}

// SessionEntitlements implements store.RuntimeTx: from the keys the view
// of the session read, else in one query.
func (t *runtimeTxn) SessionEntitlements(v *store.SessionView) ([]string, error) {
	if t.view != nil && t.view.s == v.Session {
		return t.view.entitlements(t.now), nil
	}
	if v.License != nil {
		return t.LicenseEntitlements(v.License)
	}
	s := v.Session
	return t.userKeys(s.EnvID, s.UserID, s.DeviceID)
}

// SignAccess implements store.RuntimeTx.
func (t *runtimeTxn) SignAccess(ra *store.RuntimeApp, sid string, s store.SessionSubject, seed store.SessionSeed) (string, time.Time, error) {
	return t.r.o.SignAccess(t.now, ra, s, sid, seed.JTI)
}

// RotateSession implements store.RuntimeTx: of the transactions that read
// prev's token as current, only the first to update the row finds it
// still there.
func (t *runtimeTxn) RotateSession(prev, next *store.Session) (bool, error) {
	var rotated time.Time
	err := t.tx.QueryRow(t.ctx, `UPDATE sessions SET access_hash = $3, refresh_hash = $4, retired_refresh = $5, rotated_at = $6,
			access_expires_at = $7, refresh_expires_at = $8
		WHERE id = $1 AND refresh_hash = $2 AND revoked_at IS NULL RETURNING rotated_at`,
		prev.ID, prev.RefreshHash, next.AccessHash, next.RefreshHash, next.RetiredRefresh, next.RotatedAt, next.AccessExpiresAt,
		next.RefreshExpiresAt).Scan(&rotated)
	if noRows(err) {
		return false, nil
	}
	return err == nil, err
}

// RevokeSession implements store.RuntimeTx.
func (t *runtimeTxn) RevokeSession(id, reason string) (bool, error) {
	n, err := t.exec(`UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE id = $1 AND revoked_at IS NULL`, id, t.now, reason)
	return n == 1, err
}

// LicenseKeysTaken implements store.Tx: one query for the whole draw.
func (t *txn) LicenseKeysTaken(keys []string) (map[string]bool, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT key FROM licenses WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	taken := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		taken[k] = true
	}
	return taken, rows.Err()
}

// InsertLicenses implements store.Tx: the licenses, their entries and their
// outbox events a statement per table, not per license (a thousand round
// trips each cost more than the rows); the events' snapshots come from the
// licenses just written rather than from reading them back.
func (t *txn) InsertLicenses(a *store.Application, items []*store.LicenseItem, created store.AuditEvent) error {
	if err := t.insertLicenses(a.OrgID, items); err != nil {
		return err
	}
	fresh := freshLicenses{snapshots: snapshots{t}, app: a, items: make(map[string]*store.LicenseItem, len(items))}
	targets := make([]store.Target, 0, len(items))
	for _, it := range items {
		fresh.items[it.ID] = it
		targets = append(targets, store.Target{Type: "license", ID: it.ID})
	}
	return t.auditEach(created, targets, fresh)
}

// LockPlan implements store.Tx: SELECT … FOR SHARE, so that a deletion of
// the plan on another server waits for this change (and then finds what it
// wrote) or has committed first.
func (t *txn) LockPlan(appID, id string) (*store.Plan, error) { return t.planShared(appID, id) }

// LockEntitlement implements store.Tx: SELECT … FOR SHARE, as LockPlan.
func (t *txn) LockEntitlement(appID, id string) (*store.Entitlement, error) {
	e, err := mustDoc[store.Entitlement](t, "entitlement", `SELECT doc FROM entitlements WHERE id = $1 FOR SHARE`, uuidOrNil(id))
	if err == nil && e.AppID != appID {
		return nil, store.NotFound("entitlement")
	}
	return e, err
}

// LockEndUser implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockEndUser(envID, id string) (*store.EndUser, error) {
	u, err := t.lockEndUser(id)
	if err == nil && envID != "" && u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, err
}

// PutEndUser implements store.Tx.
func (t *txn) PutEndUser(_, next *store.EndUser) error { return t.saveEndUser(next, false) }

// OrgExists implements store.Tx.
func (t *txn) OrgExists(orgID string) error { return t.orgExists(orgID) }

// InsertMember implements store.Tx: the unique index on the address
// decides between two servers adding one address at once.
func (t *txn) InsertMember(m *store.Member) error { return t.insertMember(m) }

// LicensePlan implements store.Tx.
func (t *txn) LicensePlan(l *store.License) (*store.Plan, error) { return t.leasePlan(l) }

// Runtime implements store.Tx.
func (t *txn) Runtime() store.RuntimeTx { return &runtimeTxn{txn: t} }

// EndUserIDByEmail implements store.Tx.
func (t *txn) EndUserIDByEmail(envID, email string) (string, error) {
	return t.endUserIDByEmail(envID, email)
}

// JoinOrg implements store.Tx: the row's org_id is the organization's
// index.
func (t *txn) JoinOrg(m *store.Member) error { return t.saveMember(m) }

// LockOrgMembers implements store.Tx: SELECT … ORDER BY id FOR UPDATE.
func (t *txn) LockOrgMembers(orgID string) ([]*store.Member, error) {
	return docs[store.Member](t, `SELECT doc FROM members WHERE org_id = $1 ORDER BY id FOR UPDATE`, uuidOrNil(orgID))
}

// DeleteMember implements store.Tx.
func (t *txn) DeleteMember(m *store.Member) error {
	if _, err := t.exec(`DELETE FROM members WHERE id = $1`, m.ID); err != nil {
		return err
	}
	_, err := t.exec(`DELETE FROM onboarding WHERE member_id = $1`, m.ID)
	return err
}

// MemberByEmail implements store.Tx.
func (t *txn) MemberByEmail(email string) (*store.Member, error) { return t.memberByEmail(email) }

// LockMember implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockMember(id string) (*store.Member, error) { return t.lockMember(id) }

// PutMember implements store.Tx.
func (t *txn) PutMember(m *store.Member) error { return t.saveMember(m) }

// ActAs implements store.Tx and, promoted, store.RuntimeTx.
func (t *txn) ActAs(typ, id string) { t.ctx = store.ActingAs(t.ctx, typ, id) }

// EndDashboardSessions implements store.Tx.
func (t *txn) EndDashboardSessions(memberID string) (int, error) { return t.endDashSessions(memberID) }

// App implements store.Tx.
func (t *txn) App(ref store.AppRef) (*store.Application, error) { return t.app(ref) }

// CountWebhooks implements store.Tx.
func (t *txn) CountWebhooks(appID string) (int, error) {
	return t.count(`SELECT count(*) FROM webhooks WHERE app_id = $1`, appID)
}

// LockWebhook implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockWebhook(appID, id string) (*store.Webhook, error) {
	w, err := t.lockHook(appID, id)
	if err != nil {
		return nil, err
	}
	return w.Domain(), nil
}

// lockHook loads, locked, the record of an endpoint of application appID.
func (t *txn) lockHook(appID, id string) (*storedoc.Webhook, error) {
	w, err := mustDoc[storedoc.Webhook](t, "webhook", `SELECT doc FROM webhooks WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if w.AppID != appID {
		return nil, store.NotFound("webhook")
	}
	return w, nil
}

// InsertWebhook implements store.Tx.
func (t *txn) InsertWebhook(w *store.Webhook) error {
	return t.saveWebhook(storedoc.WebhookOf(w), true)
}

// PutWebhook implements store.Tx.
func (t *txn) PutWebhook(w *store.Webhook) error { return t.saveWebhook(storedoc.WebhookOf(w), false) }

// PauseDeliveries implements store.Tx: the backlog leaves the queue in one UPDATE.
func (t *txn) PauseDeliveries(webhookID string) error {
	t.hooks = nil
	_, err := t.exec(`UPDATE webhook_deliveries SET queued = false WHERE webhook_id = $1 AND status = 'pending' AND queued`, webhookID)
	return err
}

// ResumeDeliveries implements store.Tx.
func (t *txn) ResumeDeliveries(webhookID string) error {
	t.hooks = nil
	_, err := t.exec(`UPDATE webhook_deliveries SET queued = true, next_attempt_at = $2 WHERE webhook_id = $1 AND status = 'pending'`, webhookID, t.now)
	return err
}

// DeleteWebhook implements store.Tx.
func (t *txn) DeleteWebhook(w *store.Webhook) error {
	if err := t.dropDeliveries(`webhook_id = $1`, w.ID); err != nil {
		return err
	}
	t.hooks = nil
	_, err := t.exec(`DELETE FROM webhooks WHERE id = $1`, w.ID)
	return err
}

// LockApp implements store.Tx: appLockChange, which writes under the
// application do not wait for.
func (t *txn) LockApp(ref store.AppRef) (*store.Application, error) {
	return t.lockApp(ref, appLockChange)
}

// LockAppForPurge implements store.Tx: appLockPurge, which waits for every
// write under the application and makes them wait.
func (t *txn) LockAppForPurge(ref store.AppRef) (*store.Application, error) {
	return t.lockApp(ref, appLockPurge)
}

// InsertApplication implements store.Tx: the unique index decides between
// two servers creating the same slug at once.
func (t *txn) InsertApplication(a *store.Application) error {
	if err := t.saveApp(a, true); err != nil {
		if isUnique(err, "apps_org_slug_key") {
			return store.ErrSlugTaken(a.Slug)
		}
		return err
	}
	return nil
}

// PutApplication implements store.Tx.
func (t *txn) PutApplication(a *store.Application) error { return t.saveApp(a, false) }

// PurgeApplication implements store.Tx.
func (t *txn) PurgeApplication(a *store.Application) error { return t.purgeApp(a) }

// LockEntitlementForDelete implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockEntitlementForDelete(appID, id string) (*store.Entitlement, error) {
	e, err := mustDoc[store.Entitlement](t, "entitlement", `SELECT doc FROM entitlements WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err == nil && e.AppID != appID {
		return nil, store.NotFound("entitlement")
	}
	return e, err
}

// InsertEntitlement implements store.Tx: the unique index decides between
// two servers creating the same key at once.
func (t *txn) InsertEntitlement(e *store.Entitlement) error {
	if _, err := t.exec(`INSERT INTO entitlements (id, app_id, key, doc) VALUES ($1, $2, $3, $4)`, e.ID, e.AppID, e.Key, js(e)); err != nil {
		if isUnique(err, "entitlements_app_key_key") {
			return store.ErrEntitlementKeyTaken(e.Key)
		}
		return err
	}
	return nil
}

// DeleteEntitlement implements store.Tx.
func (t *txn) DeleteEntitlement(e *store.Entitlement) error {
	_, err := t.exec(`DELETE FROM entitlements WHERE id = $1`, e.ID)
	return err
}

// LockPlans implements store.Tx: SELECT … ORDER BY id FOR UPDATE.
func (t *txn) LockPlans(appID string) ([]*store.Plan, error) {
	return t.catalogPlans(`SELECT doc FROM plans WHERE app_id = $1 ORDER BY id FOR UPDATE`, appID)
}

// PutPlan implements store.Tx: the policies verbatim (planJSON).
func (t *txn) PutPlan(p *store.Plan) error { return t.savePlan(p, false) }

// LockLicensesNaming implements store.Tx: the database makes bbolt's byte
// search (the licenses whose doc holds the id), then each row is locked.
func (t *txn) LockLicensesNaming(a *store.Application, entitlementID string) ([]*store.License, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT id::text, env_id::text FROM licenses WHERE env_id = ANY($1) AND strpos(doc::text, $2) > 0 ORDER BY id`,
		a.EnvIDs(), entitlementID)
	if err != nil {
		return nil, err
	}
	var hits [][2]string
	for rows.Next() {
		var lid, env string
		if err := rows.Scan(&lid, &env); err != nil {
			rows.Close()
			return nil, err
		}
		hits = append(hits, [2]string{lid, env})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*store.License, 0, len(hits))
	for _, h := range hits {
		l, err := t.lockLicense(h[1], h[0])
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// InsertAPIKey implements store.Tx.
func (t *txn) InsertAPIKey(k *store.APIKey) error {
	_, err := t.exec(`INSERT INTO api_keys (id, org_id, hash, doc) VALUES ($1, $2, $3, $4)`, k.ID, k.OrgID, k.Hash, js(k))
	return err
}

// LockAPIKey implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockAPIKey(orgID, id string) (*store.APIKey, error) {
	k, err := mustDoc[store.APIKey](t, "api key", `SELECT doc FROM api_keys WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err == nil && k.OrgID != orgID {
		return nil, store.NotFound("api key")
	}
	return k, err
}

// PutAPIKey implements store.Tx.
func (t *txn) PutAPIKey(k *store.APIKey) error {
	_, err := t.exec(`UPDATE api_keys SET doc = $2 WHERE id = $1`, k.ID, js(k))
	return err
}

// InsertAppSecret implements store.Tx.
func (t *txn) InsertAppSecret(s *store.AppSecret) error {
	_, err := t.exec(`INSERT INTO app_secrets (id, org_id, app_id, hash, doc) VALUES ($1, $2, $3, $4, $5)`,
		s.ID, s.OrgID, s.AppID, s.Hash, js(s))
	return err
}

// LockAppSecret implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockAppSecret(appID, id string) (*store.AppSecret, error) {
	s, err := mustDoc[store.AppSecret](t, "secret", `SELECT doc FROM app_secrets WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err == nil && s.AppID != appID {
		return nil, store.NotFound("secret")
	}
	return s, err
}

// PutAppSecret implements store.Tx.
func (t *txn) PutAppSecret(s *store.AppSecret) error {
	_, err := t.exec(`UPDATE app_secrets SET doc = $2 WHERE id = $1`, s.ID, js(s))
	return err
}

// InsertOrganization implements store.Tx: the unique constraint decides,
// and a conflict does not abort the transaction (ON CONFLICT DO NOTHING).
func (t *txn) InsertOrganization(o *store.Organization) error {
	n, err := t.exec(`INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3) ON CONFLICT ON CONSTRAINT orgs_slug_key DO NOTHING`,
		o.ID, o.Slug, js(o))
	if err == nil && n == 0 {
		err = store.ErrOrgSlugTaken(o.Slug)
	}
	return err
}

// LockOrg implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockOrg(id string) (*store.Organization, error) {
	return mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
}

// PutOrg implements store.Tx: its slug never changes.
func (t *txn) PutOrg(o *store.Organization) error {
	_, err := t.exec(`UPDATE orgs SET doc = $2 WHERE id = $1`, o.ID, js(o))
	return err
}

// LockPlanForUpdate implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockPlanForUpdate(appID, id string) (*store.Plan, error) {
	return t.catalogPlan(appID, id, true)
}

// InsertPlan implements store.Tx: the policies verbatim (planJSON).
func (t *txn) InsertPlan(p *store.Plan) error { return t.savePlan(p, true) }

// LockEntitlements implements store.Tx: one query, SELECT … FOR SHARE, so
// that a deletion on another server cannot remove one of them before this
// transaction commits the record that names it.
func (t *txn) LockEntitlements(appID string, ids []string) (map[string]*store.Entitlement, error) {
	found, err := docs[store.Entitlement](t, `SELECT doc FROM entitlements WHERE app_id = $1 AND id = ANY($2) FOR SHARE`, appID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*store.Entitlement, len(found))
	for _, e := range found {
		out[e.ID] = e
	}
	return out, nil
}

// CountPlanInUse implements store.Tx.
func (t *txn) CountPlanInUse(a *store.Application, planID string) (int, error) {
	return t.planInUse(a, planID)
}

// DeletePlan implements store.Tx.
func (t *txn) DeletePlan(p *store.Plan) error {
	_, err := t.exec(`DELETE FROM plans WHERE id = $1`, p.ID)
	return err
}

// APIKeyByHash implements store.Storage.
func (s storage) APIKeyByHash(ctx context.Context, hash string) (*store.APIKey, error) {
	return credentialByHash[store.APIKey](ctx, s.db, "api_keys", hash)
}

// AppSecretByHash implements store.Storage.
func (s storage) AppSecretByHash(ctx context.Context, hash string) (*store.AppSecret, error) {
	return credentialByHash[store.AppSecret](ctx, s.db, "app_secrets", hash)
}

// credentialByHash reads the credential of table whose hash is hash in one
// statement, outside a transaction. Nothing is cached: a revocation on any
// server refuses the credential on every server at once.
func credentialByHash[T any](ctx context.Context, db *DB, table, hash string) (*T, error) {
	conn, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	var raw []byte
	err = conn.QueryRow(ctx, `SELECT doc FROM `+table+` WHERE hash = $1`, hash).Scan(&raw)
	conn.Release()
	if noRows(err) {
		return nil, store.NotFound("credential")
	}
	if err != nil {
		return nil, mapError(err)
	}
	return decode[T](raw)
}

// Delivery implements store.Tx.
func (t *txn) Delivery(id string) (*store.Delivery, error) { return t.delivery(id, "") }

// delivery loads a delivery, the row locked as lock says ("", "FOR
// UPDATE"); nil when there is none.
func (t *txn) delivery(id, lock string) (*store.Delivery, error) {
	var raw []byte
	var c deliveryCols
	err := t.tx.QueryRow(t.ctx, `SELECT doc, status, next_attempt_at, done_at, body FROM webhook_deliveries WHERE id = $1 `+lock,
		uuidOrNil(id)).Scan(&raw, &c.Status, &c.NextAttemptAt, &c.DoneAt, &c.Body)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, err := decode[deliveryRecord](raw)
	if err != nil {
		return nil, err
	}
	return d.domain(c), nil
}

// LockDelivery implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockDelivery(webhookID, id string) (*store.Delivery, error) {
	d, err := t.delivery(id, "FOR UPDATE")
	if err != nil {
		return nil, err
	}
	if d == nil || d.WebhookID != webhookID {
		return nil, store.NotFound("delivery")
	}
	return d, nil
}

// LockAttempted implements store.Tx: the endpoint's row, then the
// delivery's, FOR UPDATE.
func (t *txn) LockAttempted(id string) (*store.Delivery, *store.Webhook, error) {
	var hookID string
	err := t.tx.QueryRow(t.ctx, `SELECT webhook_id::text FROM webhook_deliveries WHERE id = $1`, uuidOrNil(id)).Scan(&hookID)
	if noRows(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	w, err := doc[storedoc.Webhook](t, `SELECT doc FROM webhooks WHERE id = $1 FOR UPDATE`, hookID)
	if err != nil {
		return nil, nil, err
	}
	d, err := t.delivery(id, "FOR UPDATE")
	if err != nil || d == nil {
		return nil, nil, err
	}
	if w == nil {
		return nil, nil, store.NotFound("webhook")
	}
	return d, w.Domain(), nil
}

// PutDelivery implements store.Tx: the queue's state is columns, what an
// attempt changes the doc; the commit wakes every server's dispatcher.
func (t *txn) PutDelivery(_, next *store.Delivery, queued bool) error {
	if _, err := t.exec(`UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, done_at = $4, queued = $5, doc = $6 WHERE id = $1`,
		next.ID, next.Status, next.NextAttemptAt, next.DoneAt, queued, js(deliveryRecordOf(next))); err != nil {
		return err
	}
	t.queued = t.queued || (queued && next.NextAttemptAt != nil && !next.NextAttemptAt.After(t.now))
	return nil
}

// EndLease implements store.Tx: the lease is the row's.
func (t *txn) EndLease(id string) error {
	_, err := t.exec(`UPDATE webhook_deliveries SET leased_until = NULL, leased_by = '' WHERE id = $1 AND leased_until IS NOT NULL`, uuidOrNil(id))
	return err
}

// InsertPing implements store.Tx. The owner's claims wait (ownerLock) and
// the endpoint's row is held by the caller while the leases are counted,
// as a claim counts them; the lease is written with the delivery.
func (t *txn) InsertPing(w *store.Webhook, d *store.Delivery, now time.Time, c store.Claim) error {
	if err := t.ownerLock(c.Owner); err != nil {
		return err
	}
	l, err := t.hookLoadsAt(now, c.Owner)
	if err != nil {
		return err
	}
	if err := c.AdmitPing(w, l.perHook[w.ID], l.perApp[w.AppID]); err != nil {
		return err
	}
	// Not queued: the request sends it; a lease that runs out leaves it
	// pending, as a lost ping is not sent again.
	_, err = t.exec(`INSERT INTO webhook_deliveries (id, org_id, app_id, webhook_id, status, next_attempt_at, queued, leased_until, leased_by, body, doc)
		VALUES ($1, $2, $3, $4, 'pending', $5, false, $6, $7, $8, $9)`,
		d.ID, d.OrgID, d.AppID, d.WebhookID, d.NextAttemptAt, now.Add(c.Lease), c.Owner, d.Body, js(deliveryRecordOf(d)))
	return err
}

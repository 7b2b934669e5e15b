package postgres

import (
	"time"

	"licensectl/store"
)

// The loaders and savers below are the only code that reads and writes the
// shared tables of migrations/0001_schema.sql: each keeps a record's
// columns in step with its doc, in the caller's transaction.

var (
	_ = conflictOn("orgs_slug_key", func() error { return store.Errorf(store.ECodeSlugTaken, "slug is taken") })
	_ = conflictOn("apps_org_slug_key", func() error { return store.Errorf(store.ECodeSlugTaken, "slug is taken") })
	_ = conflictOn("entitlements_app_key_key", func() error {
		return store.Errorf(store.ECodeConflict, "an entitlement with this key exists")
	})
	_ = conflictOn("end_users_env_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })
)

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

// plan loads a plan of application appID.
func (t *txn) plan(appID, id string) (*store.Plan, error) {
	return t.planWhere(appID, id, `SELECT doc FROM plans WHERE id = $1`)
}

// planShared is plan with the row share-locked until the transaction ends:
// what a write that records the plan's id takes, so that the plan cannot be
// deleted on another server meanwhile.
func (t *txn) planShared(appID, id string) (*store.Plan, error) {
	return t.planWhere(appID, id, `SELECT doc FROM plans WHERE id = $1 FOR SHARE`)
}

func (t *txn) planWhere(appID, id, sql string) (*store.Plan, error) {
	p, err := mustDoc[store.Plan](t, "plan", sql, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if p.AppID != appID {
		return nil, store.NotFound("plan")
	}
	return p, nil
}

// savePlan writes p (insert when new), its policies verbatim (planJSON).
func (t *txn) savePlan(p *store.Plan, isNew bool) error {
	if isNew {
		_, err := t.exec(`INSERT INTO plans (id, app_id, doc) VALUES ($1, $2, $3)`, p.ID, p.AppID, planJSON(p))
		return err
	}
	_, err := t.exec(`UPDATE plans SET doc = $2 WHERE id = $1`, p.ID, planJSON(p))
	return err
}

// entitlement loads an entitlement of application appID.
func (t *txn) entitlement(appID, id string) (*store.Entitlement, error) {
	e, err := mustDoc[store.Entitlement](t, "entitlement", `SELECT doc FROM entitlements WHERE id = $1`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if e.AppID != appID {
		return nil, store.NotFound("entitlement")
	}
	return e, nil
}

// license loads a license of environment envID.
func (t *txn) license(envID, id string) (*store.License, error) {
	return t.licenseWhere(envID, id, `SELECT doc, devices_count FROM licenses WHERE id = $1`)
}

// lockLicense is license with the row locked until the transaction ends:
// what activation, reset and every status change take first, so that the
// device limit and the reset quota hold across servers.
func (t *txn) lockLicense(envID, id string) (*store.License, error) {
	return t.licenseWhere(envID, id, `SELECT doc, devices_count FROM licenses WHERE id = $1 FOR UPDATE`)
}

func (t *txn) licenseWhere(envID, id, sql string) (*store.License, error) {
	var raw []byte
	var n int
	if err := t.tx.QueryRow(t.ctx, sql, uuidOrNil(id)).Scan(&raw, &n); err != nil {
		if noRows(err) {
			return nil, store.NotFound("license")
		}
		return nil, err
	}
	l, err := decodeLicense(raw, n)
	if err != nil {
		return nil, err
	}
	if envID != "" && l.EnvID != envID {
		return nil, store.NotFound("license")
	}
	return l, nil
}

// decodeLicense reads a license's doc with the device count its column keeps.
func decodeLicense(raw []byte, devices int) (*store.License, error) {
	l, err := decode[store.License](raw)
	if err != nil {
		return nil, err
	}
	l.DevicesCount = devices
	return l, nil
}

// saveLicense writes l (insert when new) with orgID, the organization of
// its application. DevicesCount is not written here: bindDevice and
// unbindDevice keep it with the index.
func (t *txn) saveLicense(orgID string, l *store.License, isNew bool) error {
	if isNew {
		_, err := t.exec(`INSERT INTO licenses (id, org_id, app_id, env_id, key, plan_id, status, user_id, expires_at, doc)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			l.ID, orgID, l.AppID, l.EnvID, l.Key, l.PlanID, l.Status, nullID(l.UserID), l.ExpiresAt, js(l))
		return err
	}
	_, err := t.exec(`UPDATE licenses SET plan_id = $2, status = $3, user_id = $4, expires_at = $5, doc = $6 WHERE id = $1`,
		l.ID, l.PlanID, l.Status, nullID(l.UserID), l.ExpiresAt, js(l))
	return err
}

// bindDevice adds device to license's index and count; false when it was
// bound already.
func (t *txn) bindDevice(licenseID, deviceID string) (bool, error) {
	n, err := t.exec(`INSERT INTO license_devices (license_id, device_id, bound_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		licenseID, deviceID, t.now)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = t.exec(`UPDATE licenses SET devices_count = devices_count + 1 WHERE id = $1`, licenseID)
	return true, err
}

// unbindDevice removes device from license's index and count; false when
// it was not bound.
func (t *txn) unbindDevice(licenseID, deviceID string) (bool, error) {
	n, err := t.exec(`DELETE FROM license_devices WHERE license_id = $1 AND device_id = $2`, licenseID, deviceID)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = t.exec(`UPDATE licenses SET devices_count = devices_count - 1 WHERE id = $1`, licenseID)
	return true, err
}

// licenseItem resolves l's plan name and user e-mail.
func (t *txn) licenseItem(l *store.License) (*store.LicenseItem, error) {
	item := &store.LicenseItem{License: *l}
	p, err := doc[store.Plan](t, `SELECT doc FROM plans WHERE id = $1`, uuidOrNil(l.PlanID))
	if err != nil {
		return nil, err
	}
	if p != nil {
		item.PlanName = p.Name
	}
	if l.UserID != "" {
		u, err := doc[store.EndUser](t, `SELECT doc FROM end_users WHERE id = $1`, uuidOrNil(l.UserID))
		if err != nil {
			return nil, err
		}
		if u != nil {
			item.UserEmail = u.Email
		}
	}
	return item, nil
}

// endUser loads an end-user of environment envID.
func (t *txn) endUser(envID, id string) (*store.EndUser, error) {
	u, err := mustDoc[store.EndUser](t, "user", `SELECT doc FROM end_users WHERE id = $1`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if envID != "" && u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, nil
}

// saveEndUser writes u (insert when new).
func (t *txn) saveEndUser(u *store.EndUser, isNew bool) error {
	if isNew {
		_, err := t.exec(`INSERT INTO end_users (id, app_id, env_id, email, status, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
			u.ID, u.AppID, u.EnvID, u.Email, u.Status, js(u))
		return err
	}
	_, err := t.exec(`UPDATE end_users SET email = $2, status = $3, doc = $4 WHERE id = $1`, u.ID, u.Email, u.Status, js(u))
	return err
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

// revokeSessions revokes every live session of one owner: column is
// license_id, user_id or device_id. It returns how many it revoked.
func (t *txn) revokeSessions(column, ownerID, reason string) (int, error) {
	switch column {
	case "license_id", "user_id", "device_id":
	default:
		panic("revokeSessions: no such owner column " + column)
	}
	n, err := t.exec(`UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE `+column+` = $1 AND revoked_at IS NULL`,
		uuidOrNil(ownerID), t.now, reason)
	return int(n), err
}

// webhookRecord is an endpoint as stored: the domain's fields and what only
// the dispatcher reads.
type webhookRecord struct {
	ID           string     `json:"id"`
	OrgID        string     `json:"org"`
	AppID        string     `json:"app"`
	URL          string     `json:"url"`
	Events       []string   `json:"ev"`
	Status       string     `json:"st"`
	Secret       string     `json:"sec"`
	FailingSince *time.Time `json:"fail,omitempty"`
	// TimedOut: the last attempt ran into webhooks.timeout, so the endpoint
	// gets one send in flight instead of two.
	TimedOut  bool      `json:"to,omitempty"`
	CreatedAt time.Time `json:"ca"`
	UpdatedAt time.Time `json:"ua"`
}

func (r *webhookRecord) domain() *store.Webhook {
	return &store.Webhook{ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, URL: r.URL, Events: r.Events, Status: r.Status,
		Secret: r.Secret, FailingSince: r.FailingSince, TimedOut: r.TimedOut, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// webhookRecordOf is the record of endpoint w.
func webhookRecordOf(w *store.Webhook) *webhookRecord {
	return &webhookRecord{ID: w.ID, OrgID: w.OrgID, AppID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, FailingSince: w.FailingSince, TimedOut: w.TimedOut, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// saveWebhook writes w (insert when new) and forgets the endpoints this
// transaction has read for the outbox.
func (t *txn) saveWebhook(w *webhookRecord, isNew bool) error {
	t.hooks = nil
	if isNew {
		_, err := t.exec(`INSERT INTO webhooks (id, org_id, app_id, status, doc) VALUES ($1, $2, $3, $4, $5)`,
			w.ID, w.OrgID, w.AppID, w.Status, js(w))
		return err
	}
	_, err := t.exec(`UPDATE webhooks SET status = $2, doc = $3 WHERE id = $1`, w.ID, w.Status, js(w))
	return err
}

// nullID is id, or SQL NULL for "".
func nullID(id string) any {
	if id == "" {
		return nil
	}
	return id
}

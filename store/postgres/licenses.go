package postgres

import (
	"strconv"
	"strings"
	"time"

	"licensectl/store"
)

var (
	_ store.Licenses = (*DB)(nil)
	_                = conflictOn("licenses_key_key", func() error {
		return store.Errorf(store.ECodeInternal, "could not generate a unique license key")
	})
)

// insertLicenses writes new licenses, as saveLicense does one, in one
// statement.
func (t *txn) insertLicenses(orgID string, items []*store.LicenseItem) error {
	n := len(items)
	ids, apps, envs, keys, plans, statuses, users := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	expires, docs := make([]*time.Time, n), make([][]byte, n)
	for i, it := range items {
		l := &it.License
		ids[i], apps[i], envs[i], keys[i], plans[i], statuses[i], users[i] = l.ID, l.AppID, l.EnvID, l.Key, l.PlanID, l.Status, l.UserID
		expires[i], docs[i] = l.ExpiresAt, js(l)
	}
	_, err := t.exec(`INSERT INTO licenses (id, org_id, app_id, env_id, key, plan_id, status, user_id, expires_at, doc)
		SELECT u.id, $1, u.app, u.env, u.key, u.plan, u.status, NULLIF(u.usr, '')::uuid, u.exp, u.doc
		FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::text[], $9::timestamptz[], $10::json[])
			AS u(id, app, env, key, plan, status, usr, exp, doc)`,
		orgID, ids, apps, envs, keys, plans, statuses, users, expires, docs)
	return err
}

// freshLicenses is the snapshot source of a generation's events: the
// licenses it has just written, as a read of them would return them, and
// their application, read once rather than once per event.
type freshLicenses struct {
	snapshots
	app   *store.Application
	items map[string]*store.LicenseItem
}

func (s freshLicenses) LicenseItem(id string) (*store.LicenseItem, error) {
	if it, ok := s.items[id]; ok {
		return it, nil
	}
	return s.snapshots.LicenseItem(id)
}

func (s freshLicenses) Application(id string) (*store.Application, error) {
	if s.app.ID == id {
		return s.app, nil
	}
	return s.snapshots.Application(id)
}

// LicensePage implements store.Tx: keyset pages newest first, on columns
// the licenses_env* indexes cover.
func (t *txn) LicensePage(envID, status, planID string, p store.PageRequest) (*store.Page[*store.License], error) {
	where, args := `env_id = $1`, []any{envID}
	if status != "" {
		args = append(args, status)
		where += ` AND status = $2`
	}
	if planID != "" {
		args = append(args, planID)
		where += ` AND plan_id = $` + strconv.Itoa(len(args))
	}
	return listPage[store.License](t, "licenses", where, args, p)
}

// LicenseItems implements store.Tx: devices counts from their
// column (a doc's count is not kept), plan names and user e-mails, three
// queries whatever the page's size. A deleted plan's name reads as "".
func (t *txn) LicenseItems(ls []*store.License) ([]*store.LicenseItem, error) {
	out := make([]*store.LicenseItem, 0, len(ls))
	if len(ls) == 0 {
		return out, nil
	}
	var licIDs, planIDs, userIDs []string
	for _, l := range ls {
		licIDs = append(licIDs, l.ID)
		planIDs = append(planIDs, l.PlanID)
		if l.UserID != "" {
			userIDs = append(userIDs, l.UserID)
		}
	}
	counts, err := t.licPairs(`SELECT id::text, devices_count::text FROM licenses WHERE id = ANY($1)`, licIDs)
	if err != nil {
		return nil, err
	}
	names, err := t.licPairs(`SELECT id::text, coalesce(doc->>'Name', '') FROM plans WHERE id = ANY($1)`, planIDs)
	if err != nil {
		return nil, err
	}
	emails, err := t.licPairs(`SELECT id::text, email FROM end_users WHERE id = ANY($1)`, userIDs)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		item := &store.LicenseItem{License: *l, PlanName: names[l.PlanID], UserEmail: emails[l.UserID]}
		if n, ok := counts[l.ID]; ok {
			if item.DevicesCount, err = strconv.Atoi(n); err != nil {
				return nil, err
			}
		}
		out = append(out, item)
	}
	return out, nil
}

// licPairs runs a query of two text columns over ids into a map.
func (t *txn) licPairs(sql string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := t.tx.Query(t.ctx, sql, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// LicenseByKey implements store.Tx: one unique-index read.
func (t *txn) LicenseByKey(k string) (*store.License, error) {
	ls, err := t.licensesWhere(`key = $1`, k)
	if err != nil || len(ls) == 0 {
		return nil, err
	}
	return ls[0], nil
}

// UserLicenses implements store.Tx: one read of the user index.
func (t *txn) UserLicenses(envID, userID string) ([]*store.License, error) {
	return t.licensesWhere(`env_id = $1 AND user_id = $2`, envID, userID)
}

// EntitlementsByID implements store.Tx: one query.
func (t *txn) EntitlementsByID(appID string, ids []string) (map[string]*store.Entitlement, error) {
	found, err := docs[store.Entitlement](t, `SELECT doc FROM entitlements WHERE app_id = $1 AND id = ANY($2)`, appID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*store.Entitlement, len(found))
	for _, e := range found {
		out[e.ID] = e
	}
	return out, nil
}

// licensesWhere loads the licenses matching where, newest first, with their
// devices counts.
func (t *txn) licensesWhere(where string, args ...any) ([]*store.License, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT doc, devices_count FROM licenses WHERE `+where+` ORDER BY id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.License
	for rows.Next() {
		var raw []byte
		var n int
		if err := rows.Scan(&raw, &n); err != nil {
			return nil, err
		}
		l, err := decodeLicense(raw, n)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// endUserIDByEmail is the id of the end-user of env with this address, in
// any letter case, or "".
func (t *txn) endUserIDByEmail(envID, email string) (string, error) {
	var id string
	err := t.tx.QueryRow(t.ctx, `SELECT id::text FROM end_users WHERE env_id = $1 AND email = $2`,
		envID, strings.ToLower(strings.TrimSpace(email))).Scan(&id)
	if noRows(err) {
		return "", nil
	}
	return id, err
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

package bolt

import (
	"bytes"
	"context"
	"slices"

	"licensectl/store"
)

var _ store.Licenses = (*DB)(nil)

// maxKeyAttempts bounds the retries on a license key collision. With 125
// random bits a single collision is already astronomically unlikely; a
// second in a row means the random source is broken.
const maxKeyAttempts = 8

// GenerateLicenses implements store.Licenses. All Quantity licenses, their
// indexes and one license.created entry each commit in one transaction.
// Quantity 0 means 1.
func (db *DB) GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var out []*store.LicenseItem
	err = db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		p, err := t.plan(a.ID, in.PlanID)
		if err != nil {
			return store.Unknown(err, "plan_id", "unknown plan %s", in.PlanID)
		}
		extra, err := t.checkEntitlementIDs(a.ID, in.EntitlementIDs)
		if err != nil {
			return err
		}
		if err := db.enforceLimit(t, a.OrgID, resLicenses, in.Quantity); err != nil {
			return err
		}
		expires, err := in.Expiry(t.now)
		if err != nil {
			return err
		}
		out = make([]*store.LicenseItem, 0, in.Quantity)
		for range in.Quantity {
			k, err := t.newLicenseKey()
			if err != nil {
				return err
			}
			l := &store.License{ID: store.NewID(), AppID: a.ID, EnvID: env.ID, Key: k, PlanID: p.ID, Status: store.LicenseInactive,
				EntitlementIDs: slices.Clone(extra), ExpiresAt: expires,
				DeviceResetsRemaining: p.DeviceResetLimit, CreatedAt: t.now, UpdatedAt: t.now}
			if err := t.saveLicense(nil, l); err != nil {
				return err
			}
			if err := t.audit(auditEvent{Event: store.EventLicenseCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
				Target: store.Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"plan_id": p.ID}}); err != nil {
				return err
			}
			out = append(out, &store.LicenseItem{License: *l, PlanName: p.Name})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// newLicenseKey returns a key not yet in use.
func (t *txn) newLicenseKey() (string, error) {
	for range maxKeyAttempts {
		k := store.NewLicenseKey()
		if t.licenseByKey(k) == "" {
			return k, nil
		}
	}
	return "", store.Errorf(store.ECodeInternal, "could not generate a unique license key")
}

// licenseIndex picks the index whose prefix matches exactly the filter, so
// that both the page and the total come from one prefix.
func licenseIndex(envID string, f store.LicenseFilter) ([]byte, []byte) {
	env := idb(envID)
	switch {
	case f.Status != "" && f.PlanID != "":
		return bLicEnvPlanStatus, key(env, idb(f.PlanID), str(f.Status))
	case f.Status != "":
		return bLicEnvStatus, key(env, str(f.Status))
	case f.PlanID != "":
		return bLicEnvPlan, key(env, idb(f.PlanID))
	}
	return bLicEnv, env
}

// ListLicenses implements store.Licenses. A page costs offset+per_page index
// keys and per_page records; total is a kept count. Status filters match the
// stored status, which the expiry sweeper (ExpireLicenses) moves to expired.
func (db *DB) ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	var out *store.Page[*store.LicenseItem]
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		var page *store.Page[*store.License]
		if hasLookup(f) {
			found, err := t.lookupLicenses(env.ID, f)
			if err != nil {
				return err
			}
			if page, err = pageOf(found, f.PageRequest); err != nil {
				return err
			}
		} else {
			index, prefix := licenseIndex(env.ID, f)
			if page, err = listPage[store.License](t, index, prefix, bLicenses, f.PageRequest); err != nil {
				return err
			}
		}
		out = &store.Page[*store.LicenseItem]{Data: make([]*store.LicenseItem, 0, len(page.Data)), Total: page.Total, Page: page.Page, PerPage: page.PerPage, NextCursor: page.NextCursor}
		names := map[string]string{}
		for _, l := range page.Data {
			item, err := t.licenseItem(l, names)
			if err != nil {
				return err
			}
			out.Data = append(out.Data, item)
		}
		return nil
	})
	return out, err
}

// licenseItem resolves the plan name, user e-mail and device count of l.
// planNames caches names across one page. A deleted plan's name reads as "".
func (t *txn) licenseItem(l *store.License, planNames map[string]string) (*store.LicenseItem, error) {
	item := &store.LicenseItem{License: *l}
	name, ok := planNames[l.PlanID]
	if !ok {
		p := new(store.Plan)
		found, err := t.get(bPlans, l.PlanID, p)
		if err != nil {
			return nil, err
		}
		if found {
			name = p.Name
		}
		planNames[l.PlanID] = name
	}
	item.PlanName = name
	if l.UserID != "" {
		u := new(store.EndUser)
		found, err := t.get(bEndUsers, l.UserID, u)
		if err != nil {
			return nil, err
		}
		if found {
			item.UserEmail = u.Email
		}
	}
	return item, nil
}

// FindLicense implements store.Licenses. Entitlements are the plan's and the
// license's own, resolved now; devices are the first page of its bindings,
// so the detail weighs the same at ten devices and at a million.
func (db *DB) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	var out *store.LicenseDetail
	err := db.view(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		l, err := t.license(env.ID, id)
		if err != nil {
			return err
		}
		item, err := t.licenseItem(l, map[string]string{})
		if err != nil {
			return err
		}
		d := &store.LicenseDetail{LicenseItem: *item}
		if d.Devices, err = t.boundDevices(env.ID, l.ID, 0, store.LicenseDetailDevices); err != nil {
			return err
		}
		var planEnts []string
		p := new(store.Plan)
		if found, err := t.get(bPlans, l.PlanID, p); err != nil {
			return err
		} else if found {
			planEnts = p.EntitlementIDs
			d.DeviceResetsRemaining, _ = l.ResetsRemaining(p, t.now)
		}
		if d.Entitlements, err = t.entitlementRefs(a.ID, planEnts, l.EntitlementIDs); err != nil {
			return err
		}
		out = d
		return nil
	})
	return out, err
}

// SetLicenseStatus implements store.Licenses. Revoked and banned are final.
// Active only reinstates a suspended license; it goes back to inactive when
// it was never activated, so "inactive" keeps meaning "never activated".
// Setting the status a license already has changes nothing.
func (db *DB) SetLicenseStatus(ctx context.Context, s store.Scope, id, status string) (*store.License, error) {
	if err := store.LicenseStatus.Check(status); err != nil {
		return nil, err
	}
	var out *store.License
	err := db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prev, err := t.license(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status, t.now)
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.saveLicense(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = t.revokeLicenseSessions(next.ID, RevokedStatus); err != nil {
				return err
			}
			if _, err := t.endLeases(bLeasesLicense, next.ID, change.Event); err != nil {
				return err
			}
		}
		out = &next
		return t.audit(auditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: store.Target{Type: "license", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

// ResetLicenseDevice implements store.Licenses: the device is unbound and its
// sessions on this license revoked; device_resets_remaining is untouched.
func (db *DB) ResetLicenseDevice(ctx context.Context, s store.Scope, licenseID, deviceID string) error {
	if err := store.CheckID("device_id", deviceID); err != nil {
		return err
	}
	return db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prevL, err := t.license(env.ID, licenseID)
		if err != nil {
			return err
		}
		if !t.isBound(prevL.ID, deviceID) {
			return store.Errorf(store.ECodeNotFound, "the device is not bound to this license")
		}
		prevD, err := t.device(env.ID, deviceID)
		if err != nil {
			return err
		}
		l := *prevL
		if _, err := t.unbindDevice(&l, deviceID); err != nil {
			return err
		}
		l.UpdatedAt = t.now
		d := *prevD
		d.LicenseIDs, _ = without(prevD.LicenseIDs, licenseID)
		if err := t.saveLicense(prevL, &l); err != nil {
			return err
		}
		if err := t.saveDevice(prevD, &d); err != nil {
			return err
		}
		n, err := t.revokeDeviceLicenseSessions(deviceID, licenseID)
		if err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventLicenseDeviceReset, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: store.Target{Type: "license", ID: l.ID},
			Metadata: map[string]any{"device_id": deviceID, "by": "management", "sessions_revoked": n}})
	})
}

// expireBatch bounds one sweeper transaction so that a large backlog does not
// hold the write lock for long.
const expireBatch = 500

// ExpireLicenses stores status expired on every inactive or active license
// whose expires_at has passed, so that status filters and counts agree with
// the status reads derive. It walks the expiry index up to now only and
// returns how many licenses it moved. The server runs it at start and every
// minute.
func (db *DB) ExpireLicenses(ctx context.Context) (int, error) {
	total := 0
	for {
		n, more, err := db.expireSome(ctx)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// expireSome expires up to expireBatch licenses in one transaction.
func (db *DB) expireSome(ctx context.Context) (n int, more bool, err error) {
	err = db.update(ctx, func(t *txn) error {
		n, more = 0, false
		limit := timeKey(t.now)
		c := t.tx.Bucket(bLicExpiry).Cursor()
		var due [][]byte
		for k, _ := c.First(); k != nil && bytes.Compare(k[:8], limit) <= 0; k, _ = c.Next() {
			if len(due) == expireBatch {
				more = true
				break
			}
			due = append(due, clone(k))
		}
		for _, k := range due {
			id := ids(k[8:])
			prev := new(store.License)
			found, err := t.get(bLicenses, id, prev)
			if err != nil {
				return err
			}
			if !found {
				// Left behind by a permanently deleted application.
				if err := t.tx.Bucket(bLicExpiry).Delete(k); err != nil {
					return err
				}
				continue
			}
			if prev.EffectiveStatus(t.now) != store.LicenseExpired || prev.Status == store.LicenseExpired {
				// saveLicense keeps only lapsing licenses in the index, at
				// their current expiry: a due key that finds none is stale.
				if err := t.tx.Bucket(bLicExpiry).Delete(k); err != nil {
					return err
				}
				continue
			}
			next := *prev
			next.Status, next.UpdatedAt = store.LicenseExpired, t.now
			if err := t.saveLicense(prev, &next); err != nil {
				return err
			}
			a := new(store.Application)
			if err := t.mustGet(bApps, next.AppID, "application", a); err != nil {
				return err
			}
			if err := t.audit(auditEvent{Event: store.EventLicenseExpired, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{next.EnvID},
				Target: store.Target{Type: "license", ID: next.ID}, Metadata: map[string]any{"expires_at": next.ExpiresAt}}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, more, err
}

package bolt

import (
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

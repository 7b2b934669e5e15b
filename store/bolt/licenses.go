package bolt

import (
	"context"

	"licensectl/store"
)

var _ store.Licenses = (*DB)(nil)

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
			if page, err = store.PageOf(found, f.PageRequest); err != nil {
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

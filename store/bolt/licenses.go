package bolt

import (
	"bytes"
	"context"
	"slices"

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
		if f.IsLookup() {
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

// licenseIndexes lists the (index, prefix) entries a license occupies.
func licenseIndexes(l *store.License) [][2][]byte {
	env, plan := idb(l.EnvID), idb(l.PlanID)
	out := [][2][]byte{
		{bLicEnv, env},
		{bLicEnvStatus, key(env, str(l.Status))},
		{bLicEnvPlan, key(env, plan)},
		{bLicEnvPlanStatus, key(env, plan, str(l.Status))},
	}
	if l.UserID != "" {
		// A runtime login session carries the entitlements of its user's licenses.
		out = append(out, [2][]byte{bLicEnvUser, key(env, idb(l.UserID))})
	}
	return out
}

// containsIndex reports whether ixs holds the (index, prefix) entry ix.
func containsIndex(ixs [][2][]byte, ix [2][]byte) bool {
	return slices.ContainsFunc(ixs, func(o [2][]byte) bool { return bytes.Equal(o[0], ix[0]) && bytes.Equal(o[1], ix[1]) })
}

// saveLicense writes l and its indexes. saveLicense, saveEndUser and
// saveDevice are the only code that writes licenses, end-users and devices:
// each keeps every secondary index and count of its record in step with the
// record, in the caller's transaction. prev is the record as it was (nil
// for an insert).
func (t *txn) saveLicense(prev, l *store.License) error {
	if err := t.countOrgLicense(prev, l); err != nil {
		return err
	}
	if err := t.put(bLicenses, l.ID, l); err != nil {
		return err
	}
	// Only entries that change are touched: an activation that adds a device
	// leaves every index as it was, and rewriting them would dirty a page
	// of each index in the hot path.
	next := licenseIndexes(l)
	if prev != nil {
		old := licenseIndexes(prev)
		for _, ix := range old {
			if containsIndex(next, ix) {
				continue
			}
			if err := t.unindex(ix[0], ix[1], prev.ID); err != nil {
				return err
			}
		}
		if prev.ExpiresAt != nil {
			if err := t.tx.Bucket(bLicExpiry).Delete(key(timeKey(*prev.ExpiresAt), idb(prev.ID))); err != nil {
				return err
			}
		}
		next = slices.DeleteFunc(next, func(ix [2][]byte) bool { return containsIndex(old, ix) })
	} else if err := t.setUnique(bLicKey, licKeyIndex(l.Key), l.ID); err != nil {
		return err
	}
	for _, ix := range next {
		if err := t.index(ix[0], ix[1], l.ID); err != nil {
			return err
		}
	}
	// Only licenses that can still lapse are in the expiry index the sweeper walks.
	if l.ExpiresAt != nil && (l.Status == store.LicenseActive || l.Status == store.LicenseInactive) {
		return t.tx.Bucket(bLicExpiry).Put(key(timeKey(*l.ExpiresAt), idb(l.ID)), []byte{})
	}
	return nil
}

// license loads a license of scope environment env.
func (t *txn) license(envID, id string) (*store.License, error) {
	l := new(store.License)
	if err := t.mustGet(bLicenses, id, "license", l); err != nil {
		return nil, err
	}
	if l.EnvID != envID {
		return nil, store.NotFound("license")
	}
	return l, nil
}

// lookupLicenses returns, newest first, the licenses of env matching a key or
// end-user filter and then its status and plan: the exact lookups behind the
// list filters a support person types (a license key read out on the phone,
// a customer's e-mail). Each resolves through a unique index, so it costs a
// few gets however large the environment.
func (t *txn) lookupLicenses(envID string, f store.LicenseFilter) ([]*store.License, error) {
	var ids []string
	switch {
	case f.Key != "":
		k := store.NormalizeLicenseKey(f.Key)
		if k == "" {
			return nil, nil
		}
		if id := t.licenseByKey(k); id != "" {
			ids = []string{id}
		}
	default:
		userID := f.UserID
		if f.UserEmail != "" {
			id := t.endUserIDByEmail(envID, f.UserEmail)
			if id == "" || (userID != "" && id != userID) {
				return nil, nil
			}
			userID = id
		}
		ids = t.all(bLicEnvUser, key(idb(envID), idb(userID)))
	}
	var out []*store.License
	for _, id := range ids {
		l := new(store.License)
		found, err := t.get(bLicenses, id, l)
		if err != nil {
			return nil, err
		}
		if !found || l.EnvID != envID ||
			(f.Status != "" && l.Status != f.Status) || (f.PlanID != "" && l.PlanID != f.PlanID) ||
			(f.UserID != "" && l.UserID != f.UserID) {
			continue
		}
		if f.UserEmail != "" && f.Key != "" && l.UserID != t.endUserIDByEmail(envID, f.UserEmail) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

package bolt

import (
	"bytes"
	"slices"

	"licensectl/store"
)

var _ store.Licenses = (*DB)(nil)

// licenseIndex picks the index whose prefix matches exactly a status and a
// plan filter, so that both the page and the total come from one prefix.
func licenseIndex(envID, status, planID string) ([]byte, []byte) {
	env := idb(envID)
	switch {
	case status != "" && planID != "":
		return bLicEnvPlanStatus, key(env, idb(planID), str(status))
	case status != "":
		return bLicEnvStatus, key(env, str(status))
	case planID != "":
		return bLicEnvPlan, key(env, idb(planID))
	}
	return bLicEnv, env
}

// LicensePage implements store.Tx. A page costs offset+per_page index keys
// and per_page records; total is a kept count.
func (t *txn) LicensePage(envID, status, planID string, p store.PageRequest) (*store.Page[*store.License], error) {
	index, prefix := licenseIndex(envID, status, planID)
	return listPage[store.License](t, index, prefix, bLicenses, p)
}

// EntitlementsByID implements store.Tx: LockEntitlements holds nothing
// under the one writer.
func (t *txn) EntitlementsByID(appID string, ids []string) (map[string]*store.Entitlement, error) {
	return t.LockEntitlements(appID, ids)
}

// LicenseItems implements store.Tx, a plan's name read once a page.
func (t *txn) LicenseItems(ls []*store.License) ([]*store.LicenseItem, error) {
	out := make([]*store.LicenseItem, 0, len(ls))
	names := map[string]string{}
	for _, l := range ls {
		item, err := t.licenseItem(l, names)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
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

// LicenseByKey implements store.Tx: one unique-index get.
func (t *txn) LicenseByKey(k string) (*store.License, error) {
	id := t.licenseByKey(k)
	if id == "" {
		return nil, nil
	}
	l := new(store.License)
	if found, err := t.get(bLicenses, id, l); err != nil || !found {
		return nil, err
	}
	return l, nil
}

// UserLicenses implements store.Tx: the index of licenses by environment
// and end-user.
func (t *txn) UserLicenses(envID, userID string) ([]*store.License, error) {
	var out []*store.License
	for _, id := range t.all(bLicEnvUser, key(idb(envID), idb(userID))) {
		l := new(store.License)
		found, err := t.get(bLicenses, id, l)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, l)
		}
	}
	return out, nil
}

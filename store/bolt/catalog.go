package bolt

import (
	"bytes"

	"licensectl/store"
)

var (
	_ store.Entitlements = (*DB)(nil)
	_ store.Plans        = (*DB)(nil)
)

// Entitlements implements store.Tx.
func (t *txn) Entitlements(appID string) ([]*store.Entitlement, error) {
	return listAll[store.Entitlement](t, bEntsApp, idb(appID), bEnts)
}

// entitlement loads an entitlement of application appID.
func (t *txn) entitlement(appID, id string) (*store.Entitlement, error) {
	e := new(store.Entitlement)
	if err := t.mustGet(bEnts, id, "entitlement", e); err != nil {
		return nil, err
	}
	if e.AppID != appID {
		return nil, store.NotFound("entitlement")
	}
	return e, nil
}

// entitlementRefs resolves ids into short forms (store.ResolveEntitlements),
// an entitlement at a time.
func (t *txn) entitlementRefs(appID string, idLists ...[]string) ([]store.EntitlementRef, error) {
	return store.ResolveEntitlements(func(ids []string) (map[string]*store.Entitlement, error) {
		found := make(map[string]*store.Entitlement, len(ids))
		for _, id := range ids {
			e, err := t.entitlement(appID, id)
			if err != nil {
				return nil, err
			}
			found[id] = e
		}
		return found, nil
	}, idLists...)
}

// savePlan writes a plan record without its resolved entitlements.
func (t *txn) savePlan(p *store.Plan) error {
	rec := *p
	rec.Entitlements = nil
	return t.put(bPlans, p.ID, &rec)
}

// plan loads a plan of application appID with its entitlements resolved.
func (t *txn) plan(appID, id string) (*store.Plan, error) {
	p := new(store.Plan)
	if err := t.mustGet(bPlans, id, "plan", p); err != nil {
		return nil, err
	}
	if p.AppID != appID {
		return nil, store.NotFound("plan")
	}
	if bytes.Equal(p.Policies, []byte("null")) {
		p.Policies = nil // a nil RawMessage is stored as null
	}
	var err error
	p.Entitlements, err = t.entitlementRefs(appID, p.EntitlementIDs)
	return p, err
}

// Plan implements store.Tx.
func (t *txn) Plan(appID, id string) (*store.Plan, error) { return t.plan(appID, id) }

// Plans implements store.Tx.
func (t *txn) Plans(appID string) ([]*store.Plan, error) {
	var out []*store.Plan
	for _, id := range t.all(bPlansApp, idb(appID)) {
		p, err := t.plan(appID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// planInUse counts the licenses that keep plan (of application a) from
// being deleted, from the kept counts of licenses_by_plan_status.
func (t *txn) planInUse(a *store.Application, planID string) int {
	n := 0
	for _, env := range a.Environments {
		for _, st := range store.LicenseStatusesInUse {
			n += t.count(bLicEnvPlanStatus, key(idb(env.ID), idb(planID), str(st)))
		}
	}
	return n
}

package bolt

import (
	"bytes"
	"context"

	"licensectl/store"
)

var (
	_ store.Entitlements = (*DB)(nil)
	_ store.Plans        = (*DB)(nil)
)

// ListEntitlements implements store.Entitlements.
func (db *DB) ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error) {
	out := []*store.Entitlement{}
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		list, err := listAll[store.Entitlement](t, bEntsApp, idb(ref.AppID), bEnts)
		if list != nil {
			out = list
		}
		return err
	})
	return out, err
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

// entitlementRefs resolves ids into short forms, skipping none: every id a
// plan or license holds is kept in step by DeleteEntitlement.
func (t *txn) entitlementRefs(appID string, idLists ...[]string) ([]store.EntitlementRef, error) {
	out := []store.EntitlementRef{}
	seen := map[string]bool{}
	for _, list := range idLists {
		for _, id := range list {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, err := t.entitlement(appID, id)
			if err != nil {
				return nil, err
			}
			out = append(out, store.EntitlementRef{ID: e.ID, Key: e.Key, Name: e.Name})
		}
	}
	return out, nil
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

// ListPlans implements store.Plans.
func (db *DB) ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error) {
	out := []*store.Plan{}
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		for _, id := range t.all(bPlansApp, idb(ref.AppID)) {
			p, err := t.plan(ref.AppID, id)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// FindPlan implements store.Plans.
func (db *DB) FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error) {
	var out *store.Plan
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		var err error
		out, err = t.plan(ref.AppID, id)
		return err
	})
	return out, err
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

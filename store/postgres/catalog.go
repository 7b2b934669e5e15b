package postgres

import (
	"bytes"
	"slices"

	"licensectl/store"
)

var _ = conflictOn("entitlements_app_key_key", func() error {
	return store.Errorf(store.ECodeConflict, "an entitlement with this key exists")
})

var (
	_ store.Entitlements = (*DB)(nil)
	_ store.Plans        = (*DB)(nil)
)

// Entitlements implements store.Tx.
func (t *txn) Entitlements(appID string) ([]*store.Entitlement, error) {
	return docs[store.Entitlement](t, `SELECT doc FROM entitlements WHERE app_id = $1 ORDER BY id DESC`, appID)
}

// entitlementRefs resolves ids into short forms (store.ResolveEntitlements).
// ents holds the application's entitlements already read, by id; those
// missing from it are read in one query.
func (t *txn) entitlementRefs(appID string, ents map[string]*store.Entitlement, idLists ...[]string) ([]store.EntitlementRef, error) {
	return store.ResolveEntitlements(func(ids []string) (map[string]*store.Entitlement, error) {
		missing := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return ents[id] != nil })
		if len(missing) == 0 {
			return ents, nil
		}
		found, err := docs[store.Entitlement](t, `SELECT doc FROM entitlements WHERE app_id = $1 AND id = ANY($2)`, appID, missing)
		if err != nil {
			return nil, err
		}
		if ents == nil {
			ents = map[string]*store.Entitlement{}
		}
		for _, e := range found {
			ents[e.ID] = e
		}
		return ents, nil
	}, idLists...)
}

// planJSON is a plan's doc: the plan without its resolved entitlements,
// with its policies spliced in byte for byte. encoding/json would compact
// them and escape <, > and &; docs/design.md §6 keeps them verbatim, and the
// doc column (json, not jsonb) keeps whatever bytes it is given.
func planJSON(p *store.Plan) []byte {
	rec := *p
	rec.Entitlements = nil
	pol := rec.Policies
	rec.Policies = nil
	raw := js(&rec)
	if len(pol) == 0 {
		return raw
	}
	// No string value can hold this key unescaped: a quote inside one is
	// always written \", so the first match is the field itself.
	field := []byte(`"Policies":null`)
	i := bytes.Index(raw, field)
	if i < 0 {
		panic("planJSON: the encoded plan has no Policies field")
	}
	out := make([]byte, 0, len(raw)+len(pol))
	out = append(out, raw[:i+len(field)-len("null")]...)
	out = append(out, pol...)
	return append(out, raw[i+len(field):]...)
}

// catalogPlans reads the plans sql selects, with their policies as stored
// (a plan without any reads nil, as it was given).
func (t *txn) catalogPlans(sql string, args ...any) ([]*store.Plan, error) {
	plans, err := docs[store.Plan](t, sql, args...)
	for _, p := range plans {
		if bytes.Equal(p.Policies, []byte("null")) {
			p.Policies = nil
		}
	}
	return plans, err
}

// catalogPlan loads a plan of application appID with its entitlements
// resolved.
func (t *txn) catalogPlan(appID, id string, lock bool) (*store.Plan, error) {
	sql := `SELECT doc FROM plans WHERE id = $1`
	if lock {
		sql += ` FOR UPDATE`
	}
	plans, err := t.catalogPlans(sql, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if len(plans) == 0 || plans[0].AppID != appID {
		return nil, store.NotFound("plan")
	}
	p := plans[0]
	p.Entitlements, err = t.entitlementRefs(appID, nil, p.EntitlementIDs)
	return p, err
}

// Plans implements store.Tx: the plans, then every entitlement of the
// application in one statement.
func (t *txn) Plans(appID string) ([]*store.Plan, error) {
	plans, err := t.catalogPlans(`SELECT doc FROM plans WHERE app_id = $1 ORDER BY id DESC`, appID)
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	list, err := docs[store.Entitlement](t, `SELECT doc FROM entitlements WHERE app_id = $1`, appID)
	if err != nil {
		return nil, err
	}
	ents := make(map[string]*store.Entitlement, len(list))
	for _, e := range list {
		ents[e.ID] = e
	}
	for _, p := range plans {
		if p.Entitlements, err = t.entitlementRefs(appID, ents, p.EntitlementIDs); err != nil {
			return nil, err
		}
	}
	return plans, nil
}

// Plan implements store.Tx.
func (t *txn) Plan(appID, id string) (*store.Plan, error) { return t.catalogPlan(appID, id, false) }

// planInUse counts the licenses that keep plan (of application a) from
// being deleted, over the index of licenses by environment, plan and status.
func (t *txn) planInUse(a *store.Application, planID string) (int, error) {
	return t.count(`SELECT count(*) FROM licenses WHERE env_id = ANY($1) AND plan_id = $2 AND status = ANY($3)`,
		a.EnvIDs(), planID, store.LicenseStatusesInUse)
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

package store

import (
	"context"
	"slices"
)

// ErrEntitlementKeyTaken is the answer to an entitlement key its
// application already holds, whichever storage found it taken.
func ErrEntitlementKeyTaken(key string) error {
	return Errorf(ECodeConflict, "an entitlement with key %q already exists", key)
}

// without returns list minus v, and whether v was in it; list itself is
// left as it is.
func without(list []string, v string) ([]string, bool) {
	if !slices.Contains(list, v) {
		return list, false
	}
	return slices.DeleteFunc(slices.Clone(list), func(x string) bool { return x == v }), true
}

// CreateEntitlement implements Entitlements.
func (sv *Service) CreateEntitlement(ctx context.Context, ref AppRef, in CreateEntitlementInput) (*Entitlement, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	id := NewID()
	var out *Entitlement
	err = sv.update(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		e := &Entitlement{ID: id, AppID: a.ID, Key: in.Key, Name: in.Name, Description: in.Description, CreatedAt: t.Now()}
		if err := t.InsertEntitlement(e); err != nil {
			return err
		}
		out = e
		return t.Audit(AuditEvent{Event: EventEntitlementCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "entitlement", ID: e.ID}, Metadata: map[string]any{"key": e.Key, "name": e.Name}})
	})
	return out, err
}

// DeleteEntitlement implements Entitlements. It also removes the id from
// every plan of the application and from the extra entitlements of every
// license in both environments, in the one transaction (licenses have no
// index by entitlement: deleting one is rare, and keeping such an index in
// step on every generation would cost more). The entitlement is held first:
// a plan or license being given it on another server either commits before
// the plans and licenses are read, or finds it gone.
func (sv *Service) DeleteEntitlement(ctx context.Context, ref AppRef, id string) error {
	return sv.update(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		e, err := t.LockEntitlementForDelete(a.ID, id)
		if err != nil {
			return err
		}
		plans, err := t.LockPlans(a.ID)
		if err != nil {
			return err
		}
		for _, p := range plans {
			if rest, ok := without(p.EntitlementIDs, id); ok {
				p.EntitlementIDs = rest
				if err := t.PutPlan(p); err != nil {
					return err
				}
			}
		}
		lics, err := t.LockLicensesNaming(a, id)
		if err != nil {
			return err
		}
		for _, prev := range lics {
			rest, ok := without(prev.EntitlementIDs, id)
			if !ok {
				continue
			}
			next := *prev
			next.EntitlementIDs = rest
			if err := t.PutLicense(prev, &next); err != nil {
				return err
			}
		}
		if err := t.DeleteEntitlement(e); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventEntitlementDeleted, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "entitlement", ID: e.ID}, Metadata: map[string]any{"key": e.Key}})
	})
}

// planEntitlements checks the entitlement ids a plan is given
// (CheckEntitlementIDs) against the entitlements of application appID,
// read held against their deletion in one call, and returns the ids kept
// with their short forms, in the order given.
func planEntitlements(t Tx, appID string, ids []string) ([]string, []EntitlementRef, error) {
	var known map[string]*Entitlement
	kept, err := CheckEntitlementIDs(ids, func(id string) error {
		if known == nil {
			valid := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !ValidID(id) })
			var err error
			if known, err = t.LockEntitlements(appID, valid); err != nil {
				return err
			}
		}
		if known[id] == nil {
			return NotFound("entitlement")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	refs := make([]EntitlementRef, 0, len(kept))
	for _, id := range kept {
		e := known[id]
		refs = append(refs, EntitlementRef{ID: e.ID, Key: e.Key, Name: e.Name})
	}
	return kept, refs, nil
}

// changePlan loads, held, a plan of ref's application that is about to
// change or go, with its application.
func changePlan(t Tx, ref AppRef, id string) (*Application, *Plan, error) {
	a, err := t.App(ref)
	if err != nil {
		return nil, nil, err
	}
	p, err := t.LockPlanForUpdate(a.ID, id)
	if err != nil {
		return nil, nil, err
	}
	return a, p, nil
}

// CreatePlan implements Plans. What the plan holds is decided by NewPlan
// from the input; the storage writes the record it is given.
func (sv *Service) CreatePlan(ctx context.Context, ref AppRef, in PlanInput) (*Plan, error) {
	proto, err := NewPlan(in)
	if err != nil {
		return nil, err
	}
	id := NewID()
	var out *Plan
	err = sv.update(ctx, func(t Tx) error {
		p := *proto // a retried transaction starts from the plan as given
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		p.Entitlements = []EntitlementRef{}
		if in.EntitlementIDs != nil {
			if p.EntitlementIDs, p.Entitlements, err = planEntitlements(t, a.ID, *in.EntitlementIDs); err != nil {
				return err
			}
		}
		now := t.Now()
		p.ID, p.AppID, p.CreatedAt, p.UpdatedAt = id, a.ID, now, now
		if err := t.InsertPlan(&p); err != nil {
			return err
		}
		out = &p
		return t.Audit(AuditEvent{Event: EventPlanCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "plan", ID: p.ID}, Metadata: map[string]any{"name": p.Name}})
	})
	return out, err
}

// UpdatePlan implements Plans. Licenses already generated keep their
// device_resets_remaining; max_devices and entitlements apply live.
func (sv *Service) UpdatePlan(ctx context.Context, ref AppRef, id string, in PlanInput) (*Plan, error) {
	var out *Plan
	err := sv.update(ctx, func(t Tx) error {
		a, p, err := changePlan(t, ref, id)
		if err != nil {
			return err
		}
		if err := p.Apply(in); err != nil {
			return err
		}
		if in.EntitlementIDs != nil {
			if p.EntitlementIDs, p.Entitlements, err = planEntitlements(t, a.ID, *in.EntitlementIDs); err != nil {
				return err
			}
		}
		out = p
		if in.Empty() {
			return nil // an empty PATCH changes nothing and is not audited
		}
		p.UpdatedAt = t.Now()
		if err := t.PutPlan(p); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventPlanUpdated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "plan", ID: p.ID}, Metadata: map[string]any{"name": p.Name}})
	})
	return out, err
}

// DeletePlan implements Plans. Licenses that no longer hold the plan in
// use (revoked, banned, expired) keep its id; their plan name reads as "".
// The plan is held before the licenses are counted: a generation that
// holds the plan (Tx.LockPlan) either commits first, and is counted, or
// waits and then finds the plan gone.
func (sv *Service) DeletePlan(ctx context.Context, ref AppRef, id string) error {
	return sv.update(ctx, func(t Tx) error {
		a, p, err := changePlan(t, ref, id)
		if err != nil {
			return err
		}
		n, err := t.CountPlanInUse(a, p.ID)
		if err != nil {
			return err
		}
		if err := CheckPlanUnused(n); err != nil {
			return err
		}
		if err := t.DeletePlan(p); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventPlanDeleted, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "plan", ID: p.ID}, Metadata: map[string]any{"name": p.Name}})
	})
}

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

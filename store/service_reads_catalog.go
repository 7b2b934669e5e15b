package store

import "context"

// Owns refuses with not_found an application of another organization than
// ref's: another organization's records are never forbidden, they are not
// there (docs/design.md §4).
func (ref AppRef) Owns(a *Application) error {
	if a.OrgID != ref.OrgID {
		return NotFound("application")
	}
	return nil
}

// ListApplications implements Applications.
func (sv *Service) ListApplications(ctx context.Context, orgID string) ([]*Application, error) {
	var out []*Application
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.Applications(orgID)
		return err
	})
	return out, err
}

// FindApplication implements Applications.
func (sv *Service) FindApplication(ctx context.Context, ref AppRef) (*Application, error) {
	var out *Application
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.App(ref)
		return err
	})
	return out, err
}

// ListEntitlements implements Entitlements.
func (sv *Service) ListEntitlements(ctx context.Context, ref AppRef) ([]*Entitlement, error) {
	return appRecords(sv, ctx, ref, Tx.Entitlements)
}

// ListPlans implements Plans.
func (sv *Service) ListPlans(ctx context.Context, ref AppRef) ([]*Plan, error) {
	return appRecords(sv, ctx, ref, Tx.Plans)
}

// appRecords reads what list loads of ref's application, in one read-only
// transaction: an empty list, not nil, when it has none.
func appRecords[T any](sv *Service, ctx context.Context, ref AppRef, list func(t Tx, appID string) ([]*T, error)) ([]*T, error) {
	var out []*T
	err := sv.view(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		out, err = list(t, a.ID)
		return err
	})
	return orEmptyList(out), err
}

// FindPlan implements Plans.
func (sv *Service) FindPlan(ctx context.Context, ref AppRef, id string) (*Plan, error) {
	var out *Plan
	err := sv.view(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		out, err = t.Plan(a.ID, id)
		return err
	})
	return out, err
}

// ResolveEntitlements turns the ids of idLists into their short forms, in
// order and each once, reading them with get (which answers, by id, those
// that are entitlements of the application). None is skipped: every id a
// plan or license holds is kept in step by DeleteEntitlement, so one that
// get does not answer is not_found.
func ResolveEntitlements(get func(ids []string) (map[string]*Entitlement, error), idLists ...[]string) ([]EntitlementRef, error) {
	var ids []string
	seen := map[string]bool{}
	for _, list := range idLists {
		for _, id := range list {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	out := make([]EntitlementRef, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	found, err := get(ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		e := found[id]
		if e == nil {
			return nil, NotFound("entitlement")
		}
		out = append(out, EntitlementRef{ID: e.ID, Key: e.Key, Name: e.Name})
	}
	return out, nil
}

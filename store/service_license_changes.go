package store

import (
	"context"
)

// The licence after the sale (docs/design.md §16): renewals, plan changes,
// transfers. Each locks the license first, as every change of the licence
// aggregate does, so that twenty renewals of one license on any servers
// add up and a plan change cannot race an activation past the new cap.

// RenewLicense renews one license of the scope (License.Renew) and audits
// license.renewed. Returns validation_failed, invalid_transition,
// not_found.
func (sv *Service) RenewLicense(ctx context.Context, s Scope, id string, in RenewInput) (*LicenseItem, error) {
	if err := CheckID("license_id", id); err != nil {
		return nil, NotFound("license")
	}
	if err := in.Check(); err != nil {
		return nil, err
	}
	return sv.changeLicense(ctx, s, func(c *licenseChange) (*License, error) { return c.renew(id, in) })
}

// RenewLicenses renews every license of in by in.Days in one transaction:
// one that cannot be renewed (unknown, perpetual, revoked, banned) leaves
// them all as they were, and the error names it. One license.renewed per
// license. Returns validation_failed, invalid_transition, not_found.
func (sv *Service) RenewLicenses(ctx context.Context, s Scope, in BulkRenewInput) ([]*LicenseItem, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out []*LicenseItem
	err := sv.update(ctx, func(t Tx) error {
		c, err := openLicenseChange(t, s)
		if err != nil {
			return err
		}
		out = make([]*LicenseItem, 0, len(in.LicenseIDs))
		days := in.Days
		for _, id := range in.LicenseIDs {
			l, err := c.renew(id, RenewInput{Days: &days})
			if err != nil {
				if e := AsError(err); e != nil && e.Code != ECodeInternal {
					named := *e
					named.Message = "license " + id + ": " + e.Message
					return &named
				}
				return err
			}
			it, err := c.item(l)
			if err != nil {
				return err
			}
			out = append(out, it)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateLicense applies a PATCH of a license: its plan, end-user, dates
// and status together in one transaction or not at all, each change with
// its event (license.plan_changed, license.transferred, license.updated,
// the status's). Returns validation_failed (also an unknown plan),
// invalid_transition, too_many_devices, not_found (license, end-user).
func (sv *Service) UpdateLicense(ctx context.Context, s Scope, id string, u LicenseUpdate) (*LicenseItem, error) {
	if err := CheckID("license_id", id); err != nil {
		return nil, NotFound("license")
	}
	if err := u.Check(); err != nil {
		return nil, err
	}
	return sv.changeLicense(ctx, s, func(c *licenseChange) (*License, error) { return c.update(id, u) })
}

// changeLicense runs one change of one license of the scope in a
// transaction and answers the license as it then stands.
func (sv *Service) changeLicense(ctx context.Context, s Scope, change func(*licenseChange) (*License, error)) (*LicenseItem, error) {
	var out *LicenseItem
	err := sv.update(ctx, func(t Tx) error {
		c, err := openLicenseChange(t, s)
		if err != nil {
			return err
		}
		l, err := change(c)
		if err != nil {
			return err
		}
		out, err = c.item(l)
		return err
	})
	return out, err
}

// licenseChange is one transaction of changes to licenses of a scope, with
// the plans and end-users it has read.
type licenseChange struct {
	t     Tx
	app   *Application
	env   *Environment
	plans map[string]*Plan // nil: the plan is gone
	users map[string]*EndUser
}

func openLicenseChange(t Tx, s Scope) (*licenseChange, error) {
	a, env, err := t.Scope(s)
	if err != nil {
		return nil, err
	}
	return &licenseChange{t: t, app: a, env: env, plans: map[string]*Plan{}, users: map[string]*EndUser{}}, nil
}

// plan reads a plan of the application, held against its deletion; nil,
// nil when it is gone (an expired license's plan may be deleted).
func (c *licenseChange) plan(id string) (*Plan, error) {
	if p, ok := c.plans[id]; ok {
		return p, nil
	}
	p, err := c.t.LockPlan(c.app.ID, id)
	if ErrorCode(err) == ECodeNotFound {
		p, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.plans[id] = p
	return p, nil
}

// user reads an end-user of the environment. Returns not_found.
func (c *licenseChange) user(id string) (*EndUser, error) {
	if u, ok := c.users[id]; ok {
		return u, nil
	}
	u, err := c.t.LockEndUser(c.env.ID, id)
	if err != nil {
		return nil, err
	}
	c.users[id] = u
	return u, nil
}

// item is l as listed, its plan's name and its end-user's e-mail resolved.
func (c *licenseChange) item(l *License) (*LicenseItem, error) {
	it := &LicenseItem{License: *l}
	p, err := c.plan(l.PlanID)
	if err != nil {
		return nil, err
	}
	if p != nil {
		it.PlanName = p.Name
	}
	if l.UserID != "" {
		u, err := c.user(l.UserID)
		if err != nil && ErrorCode(err) != ECodeNotFound {
			return nil, err
		}
		if u != nil {
			it.UserEmail = u.Email
		}
	}
	return it, nil
}

func (c *licenseChange) audit(ev LicenseEvent, licenseID string) error {
	return c.t.Audit(AuditEvent{Event: ev.Event, OrgID: c.app.OrgID, AppID: c.app.ID, EnvIDs: []string{c.env.ID},
		Target: Target{Type: "license", ID: licenseID}, Metadata: ev.Metadata})
}

func (c *licenseChange) renew(id string, in RenewInput) (*License, error) {
	prev, err := c.t.LockLicense(c.env.ID, id)
	if err != nil {
		return nil, err
	}
	var plan *Plan
	if in.Days == nil && in.MaintenanceDays == nil {
		if plan, err = c.plan(prev.PlanID); err != nil {
			return nil, err
		}
	}
	next := *prev
	ev, err := next.Renew(in, plan, c.t.Now())
	if err != nil {
		return nil, err
	}
	if err := c.t.PutLicense(prev, &next); err != nil {
		return nil, err
	}
	return &next, c.audit(ev, next.ID)
}

func (c *licenseChange) update(id string, u LicenseUpdate) (*License, error) {
	prev, err := c.t.LockLicense(c.env.ID, id)
	if err != nil {
		return nil, err
	}
	now := c.t.Now()
	next := *prev
	var events []*LicenseEvent
	if u.PlanID != nil && *u.PlanID != prev.PlanID {
		to, err := c.plan(*u.PlanID)
		if err != nil {
			return nil, err
		}
		if to == nil {
			return nil, Invalid("plan_id", "plan_id names no plan of this application")
		}
		from, err := c.plan(prev.PlanID)
		if err != nil {
			return nil, err
		}
		ev, err := next.ChangePlan(from, to, now)
		if err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	if u.UserID != nil && *u.UserID != prev.UserID {
		var from, to *EndUser
		if *u.UserID != "" {
			if to, err = c.user(*u.UserID); err != nil {
				return nil, err
			}
		}
		if prev.UserID != "" {
			if from, err = c.user(prev.UserID); err != nil && ErrorCode(err) != ECodeNotFound {
				return nil, err
			}
		}
		ev, err := next.Transfer(from, to, now)
		if err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	ev, err := next.SetDates(u, now)
	if err != nil {
		return nil, err
	}
	if ev != nil {
		events = append(events, ev)
	}
	var status StatusChange
	if u.Status != nil {
		if status, err = next.SetStatus(*u.Status, now); err != nil {
			return nil, err
		}
	}
	if len(events) == 0 && status.Event == "" {
		return prev, nil
	}
	if err := c.t.PutLicense(prev, &next); err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := c.audit(*ev, next.ID); err != nil {
			return nil, err
		}
	}
	if status.Event == "" {
		return &next, nil
	}
	revoked := 0
	if status.Revoke {
		if revoked, err = endUse(c.t, c.app, c.env, OwnerLicense, next.ID, status.Event); err != nil {
			return nil, err
		}
	}
	return &next, c.audit(LicenseEvent{Event: status.Event, Metadata: map[string]any{"from": status.From, "to": status.To, "sessions_revoked": revoked}}, next.ID)
}

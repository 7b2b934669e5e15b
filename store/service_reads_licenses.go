package store

import "context"

// ListLicenses implements Licenses: a page through the environment's index
// of licenses (by status and plan when the filter names them), or the few
// licenses a key or an end-user lookup finds, paged in memory. Status
// filters match the stored status, which the expiry pass moves to expired.
func (sv *Service) ListLicenses(ctx context.Context, s Scope, f LicenseFilter) (*Page[*LicenseItem], error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	var out *Page[*LicenseItem]
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		var page *Page[*License]
		if f.IsLookup() {
			found, err := lookupLicenses(t, env.ID, f)
			if err != nil {
				return err
			}
			if page, err = PageOf(found, f.PageRequest); err != nil {
				return err
			}
		} else if page, err = t.LicensePage(env.ID, f.Status, f.PlanID, f.PageRequest); err != nil {
			return err
		}
		items, err := t.LicenseItems(page.Data)
		if err != nil {
			return err
		}
		out = &Page[*LicenseItem]{Data: items, Total: page.Total, Page: page.Page, PerPage: page.PerPage, NextCursor: page.NextCursor}
		return nil
	})
	return out, err
}

// lookupLicenses returns, newest first, the licenses of environment envID
// that a key or an end-user filter names and that its status, plan and
// end-user also match: the exact lookups behind the filters a support
// person types (a license key read out on the phone, a customer's e-mail).
// Each resolves through a unique index or the index of a user's licenses,
// so it costs a few reads however large the environment. A license of
// another environment is not there.
func lookupLicenses(t Tx, envID string, f LicenseFilter) ([]*License, error) {
	var found []*License
	userID := f.UserID
	if f.UserEmail != "" {
		id, err := t.EndUserIDByEmail(envID, f.UserEmail)
		if err != nil || id == "" || (userID != "" && id != userID) {
			return nil, err
		}
		userID = id
	}
	switch {
	case f.Key != "":
		k := NormalizeLicenseKey(f.Key)
		if k == "" {
			return nil, nil
		}
		l, err := t.LicenseByKey(k)
		if err != nil {
			return nil, err
		}
		if l != nil {
			found = []*License{l}
		}
	default:
		var err error
		if found, err = t.UserLicenses(envID, userID); err != nil {
			return nil, err
		}
	}
	var out []*License
	for _, l := range found {
		if l.EnvID != envID || (f.Status != "" && l.Status != f.Status) || (f.PlanID != "" && l.PlanID != f.PlanID) ||
			(userID != "" && l.UserID != userID) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// FindLicense implements Licenses. Entitlements are the plan's and the
// license's own, resolved now; devices are the first page of its bindings,
// so the detail weighs the same at ten devices and at a million. A
// license of another environment than s names is not_found, as an unknown
// one; a deleted plan's name reads as "".
func (sv *Service) FindLicense(ctx context.Context, s Scope, id string) (*LicenseDetail, error) {
	var out *LicenseDetail
	err := sv.view(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		l, err := t.License(env.ID, id)
		if err != nil {
			return err
		}
		d := &LicenseDetail{LicenseItem: LicenseItem{License: *l}}
		p, err := t.LicensePlan(l)
		if err != nil {
			return err
		}
		var planEnts []string
		if p.ID != "" {
			d.PlanName, planEnts = p.Name, p.EntitlementIDs
			d.DeviceResetsRemaining, _ = l.ResetsRemaining(p, t.Now())
		}
		if l.UserID != "" {
			u, err := t.EndUser(l.EnvID, l.UserID)
			switch {
			case err == nil:
				d.UserEmail = u.Email
			case ErrorCode(err) != ECodeNotFound:
				return err
			}
		}
		if d.Devices, err = t.Runtime().ListBoundDevices(env.ID, l.ID, LicenseDetailDevices); err != nil {
			return err
		}
		get := func(ids []string) (map[string]*Entitlement, error) { return t.EntitlementsByID(a.ID, ids) }
		if d.Entitlements, err = ResolveEntitlements(get, planEnts, l.EntitlementIDs); err != nil {
			return err
		}
		out = d
		return nil
	})
	return out, err
}

// ListLeases implements LicenseLeases: the live leases of a license, in
// LicenseLeases' order (newest first). A license of another environment
// than s names is not_found, as an unknown one.
func (sv *Service) ListLeases(ctx context.Context, s Scope, licenseID string) ([]*Lease, error) {
	out := []*Lease{}
	err := sv.view(ctx, func(t Tx) error {
		out = []*Lease{}
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if _, err := t.License(env.ID, licenseID); err != nil {
			return err
		}
		all, err := t.LicenseLeases(licenseID)
		if err != nil {
			return err
		}
		now := t.Now()
		for _, l := range all {
			if l.Live(now) {
				out = append(out, l)
			}
		}
		return nil
	})
	return out, err
}

// CountLicenseSessions implements Licenses: how many sessions opened on
// the license are live now. A license of another environment than s names
// is not_found, as an unknown one.
func (sv *Service) CountLicenseSessions(ctx context.Context, s Scope, licenseID string) (int, error) {
	n := 0
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if _, err := t.License(env.ID, licenseID); err != nil {
			return err
		}
		n, err = t.LiveLicenseSessions(licenseID)
		return err
	})
	return n, err
}

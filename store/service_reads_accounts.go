package store

import (
	"context"
	"strings"
)

// orgMember refuses with not_found a member of another organization than
// orgID, or of none: another organization's member is not there, never
// forbidden (docs/design.md §4).
func orgMember(m *Member, orgID string) error {
	if m.OrgID != orgID || orgID == "" {
		return NotFound("member")
	}
	return nil
}

// endUserApp loads the application of an end-user and refuses, with the
// end-user's not_found, one of another organization than orgID.
func endUserApp(t Tx, orgID string, u *EndUser) (*Application, error) {
	a, err := t.Application(u.AppID)
	if ErrorCode(err) == ECodeNotFound || err == nil && a.OrgID != orgID {
		return nil, NotFound("user")
	}
	return a, err
}

// FindOrganization implements Organizations.
func (sv *Service) FindOrganization(ctx context.Context, id string) (*Organization, error) {
	var out *Organization
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.Org(id)
		return err
	})
	return out, err
}

// FindOrganizationBySlug implements OrganizationSlugs. Text that is no
// slug is not_found unread: no organization can hold it, and some of it (a
// NUL) no store can even be asked about.
func (sv *Service) FindOrganizationBySlug(ctx context.Context, slug string) (*Organization, error) {
	if !ValidSlug(slug) {
		return nil, NotFound("organization")
	}
	var out *Organization
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.OrgBySlug(slug)
		return err
	})
	return out, err
}

// ListOrganizations implements Organizations.
func (sv *Service) ListOrganizations(ctx context.Context) ([]*Organization, error) {
	var out []*Organization
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.Orgs()
		return err
	})
	return orEmptyList(out), err
}

// ListMembers implements Members: an unknown organization is not_found,
// one without members an empty list.
func (sv *Service) ListMembers(ctx context.Context, orgID string) ([]*Member, error) {
	var out []*Member
	err := sv.view(ctx, func(t Tx) error {
		if err := t.OrgExists(orgID); err != nil {
			return err
		}
		var err error
		out, err = t.Members(orgID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return orEmptyList(out), nil
}

// FindMember implements Members.
func (sv *Service) FindMember(ctx context.Context, orgID, id string) (*Member, error) {
	var out *Member
	err := sv.view(ctx, func(t Tx) error {
		m, err := t.Member(id)
		if err != nil {
			return err
		}
		if err := orgMember(m, orgID); err != nil {
			return err
		}
		out = m
		return nil
	})
	return out, err
}

// FindEndUser implements EndUserAccounts: an end-user of any application
// of the organization. The server uses it to keep application secrets to
// their own application's users.
func (sv *Service) FindEndUser(ctx context.Context, orgID, id string) (*EndUser, error) {
	var out *EndUser
	err := sv.view(ctx, func(t Tx) error {
		u, err := t.EndUser("", id)
		if err != nil {
			return err
		}
		if _, err := endUserApp(t, orgID, u); err != nil {
			return err
		}
		out = u
		return nil
	})
	return out, err
}

// ListEndUsers implements EndUsers: a page through the environment's index
// (by status when the filter names one), or the one end-user an e-mail
// names, through the unique index of addresses.
func (sv *Service) ListEndUsers(ctx context.Context, s Scope, f StatusFilter) (*Page[*EndUser], error) {
	if err := f.CheckEndUsers(); err != nil {
		return nil, err
	}
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *Page[*EndUser]
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if f.Email != "" {
			u, err := t.EndUserByEmail(env.ID, f.Email)
			out, err = lookupPage(u, err, f.Status, func(u *EndUser) string { return u.Status }, f.PageRequest)
			return err
		}
		out, err = t.EndUserPage(env.ID, f.Status, f.PageRequest)
		return err
	})
	return out, err
}

// ListDevices implements Devices: a page through the environment's index
// (by status when the filter names one), the one device a fingerprint
// names, or the devices bound to a license of the environment (not_found
// for another's).
func (sv *Service) ListDevices(ctx context.Context, s Scope, f StatusFilter) (*Page[*Device], error) {
	if err := f.CheckDevices(); err != nil {
		return nil, err
	}
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *Page[*Device]
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		switch {
		case f.LicenseID != "":
			l, err := t.License(env.ID, f.LicenseID)
			if err != nil {
				return err
			}
			out, err = t.BoundDevicePage(l, f.PageRequest)
			return err
		case f.Fingerprint != "":
			d, err := t.DeviceByFingerprint(env.ID, strings.TrimSpace(f.Fingerprint))
			out, err = lookupPage(d, err, f.Status, func(d *Device) string { return d.Status }, f.PageRequest)
			return err
		}
		out, err = t.DevicePage(env.ID, f.Status, f.PageRequest)
		return err
	})
	return out, err
}

// CountDeviceSessions implements Devices.
func (sv *Service) CountDeviceSessions(ctx context.Context, s Scope, deviceID string) (int, error) {
	n := 0
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if _, err := t.Device(env.ID, deviceID); err != nil {
			return err
		}
		n, err = t.LiveDeviceSessions(deviceID)
		return err
	})
	return n, err
}

// MailTokenState implements MailTokens: a token of another purpose, or of
// an account removed since, is unknown, like one never issued.
func (sv *Service) MailTokenState(ctx context.Context, token, purpose string) (string, error) {
	state := TokenStateUnknown
	if err := CheckStorable("purpose", purpose); err != nil {
		return state, err
	}
	if token == "" {
		return state, nil
	}
	err := sv.view(ctx, func(t Tx) error {
		k, err := t.MailToken(token)
		if err != nil || k == nil || k.Purpose != purpose {
			return err
		}
		if _, err := t.Member(k.SubjectID); err != nil {
			if ErrorCode(err) == ECodeNotFound {
				return nil
			}
			return err
		}
		state = k.State(t.Now())
		return nil
	})
	return state, err
}

package store

import (
	"context"
	"fmt"
	"strings"
)

// The organization aggregate: its creation (by the operator, by signup,
// by a partner sign-in's profile) and its renaming.

// OrgSlugBase is the slug an organization named name gets when no other
// holds it: its name's slug, prefixed org- when that is too short for a
// slug, cut to leave room for the -N that tells two of one name apart.
func OrgSlugBase(name string) string {
	base := Slugify(name)
	if len(base) < 3 {
		base = "org-" + strings.Trim(base, "-")
		base = strings.TrimRight(base, "-")
	}
	if len(base) > 55 {
		base = strings.TrimRight(base[:55], "-")
	}
	return base
}

// NthSlug is the i-th slug an organization of slug base is offered, from
// 1: base, then base-2, base-3…
func NthSlug(base string, i int) string {
	if i <= 1 {
		return base
	}
	return fmt.Sprintf("%s-%d", base, i)
}

// insertOrg writes, in t, the new organization id named name, its slug
// the first of its name's that no organization holds.
func (sv *Service) insertOrg(t Tx, id, name string, verified bool) (*Organization, error) {
	now := t.Now()
	o := &Organization{ID: id, Name: name, Slug: OrgSlugBase(name), EmailVerified: verified, CreatedAt: now, UpdatedAt: now}
	if err := t.InsertOrg(o); err != nil {
		return nil, err
	}
	return o, nil
}

// CreateOrganization implements Organizations. An owner named by address
// is created verified: the operator vouches for it.
func (sv *Service) CreateOrganization(ctx context.Context, in CreateOrganizationInput) (*Organization, error) {
	name, err := CheckName("name", in.Name)
	if err != nil {
		return nil, err
	}
	var owner *Member
	if in.OwnerEmail != "" {
		if owner, err = sv.NewMember(ctx, AddMemberInput{Email: in.OwnerEmail, Password: in.OwnerPassword, Role: RoleOwner}); err != nil {
			return nil, err
		}
		owner.EmailVerified = true
	}
	var out *Organization
	err = sv.update(ctx, func(t Tx) error {
		o, err := sv.insertOrg(t, NewID(), name, owner != nil)
		if err != nil {
			return err
		}
		if owner != nil {
			owner.OrgID = o.ID
			if err := t.InsertMember(owner); err != nil {
				return err
			}
		}
		out = o
		return t.Audit(AuditEvent{Event: EventOrganizationCreated, OrgID: o.ID, Target: Target{Type: "organization", ID: o.ID}, Metadata: map[string]any{"name": o.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateOrganization implements Organizations: the organization is held
// while it is renamed; its slug stays. An update that changes nothing
// writes nothing.
func (sv *Service) UpdateOrganization(ctx context.Context, id string, upd OrganizationUpdate) (*Organization, error) {
	if upd.Name != nil {
		n, err := CheckName("name", *upd.Name)
		if err != nil {
			return nil, err
		}
		upd.Name = &n
	}
	var out *Organization
	err := sv.update(ctx, func(t Tx) error {
		o, err := t.LockOrg(id)
		if err != nil {
			return err
		}
		out = o
		if upd.Name == nil || *upd.Name == o.Name {
			return nil
		}
		o.Name, o.UpdatedAt = *upd.Name, t.Now()
		if err := t.PutOrg(o); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventOrganizationUpdated, OrgID: id, Target: Target{Type: "organization", ID: id}, Metadata: map[string]any{"name": o.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

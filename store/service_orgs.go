package store

import (
	"context"
	"fmt"
	"strings"
)

// ErrOrgSlugTaken is what Tx.InsertOrganization answers for a slug another
// organization holds; NewOrganization then tries the next one.
func ErrOrgSlugTaken(slug string) error {
	return Errorf(ECodeSlugTaken, "an organization with slug %q already exists", slug)
}

// orgSlugBase is the slug an organization's name gives, before a suffix
// tells it from another's: at least three characters and at most 55, so
// that "-" and a number still fit in a slug.
func orgSlugBase(name string) string {
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

// NewOrganization writes a new organization id through t with the first
// slug of base, base-2, base-3… (orgSlugBase) that no organization holds.
// The storage's insertion decides, not a read before it, so two servers
// creating "Acme" at once get acme and acme-2 rather than one failing.
func NewOrganization(t Tx, id, name string, verified bool) (*Organization, error) {
	base := orgSlugBase(name)
	now := t.Now()
	o := &Organization{ID: id, Name: name, EmailVerified: verified, CreatedAt: now, UpdatedAt: now}
	for i := 1; ; i++ {
		o.Slug = base
		if i > 1 {
			o.Slug = fmt.Sprintf("%s-%d", base, i)
		}
		err := t.InsertOrganization(o)
		if ErrorCode(err) != ECodeSlugTaken {
			return o, err
		}
	}
}

// CreateOrganization implements Organizations.
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
	id := NewID()
	var out *Organization
	err = sv.update(ctx, func(t Tx) error {
		o, err := NewOrganization(t, id, name, owner != nil)
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
		return t.Audit(AuditEvent{Event: EventOrganizationCreated, OrgID: o.ID, Target: Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateOrganization implements Organizations.
func (sv *Service) UpdateOrganization(ctx context.Context, id string, u OrganizationUpdate) (*Organization, error) {
	if u.Name != nil {
		n, err := CheckName("name", *u.Name)
		if err != nil {
			return nil, err
		}
		u.Name = &n
	}
	var out *Organization
	err := sv.update(ctx, func(t Tx) error {
		o, err := t.LockOrg(id)
		if err != nil {
			return err
		}
		out = o
		if u.Name == nil || *u.Name == o.Name {
			return nil
		}
		o.Name, o.UpdatedAt = *u.Name, t.Now()
		if err := t.PutOrg(o); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventOrganizationUpdated, OrgID: id, Target: Target{Type: "organization", ID: id},
			Metadata: map[string]any{"name": o.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

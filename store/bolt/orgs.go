package bolt

import (
	"context"
	"fmt"
	"strings"

	"licensectl/store"
)

var _ store.Organizations = (*DB)(nil)

// FindOrganization implements store.Organizations.
func (db *DB) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	return db.findOrg(ctx, func(*txn) string { return id })
}

// FindOrganizationBySlug implements store.OrganizationSlugs: one get in
// the slug index.
func (db *DB) FindOrganizationBySlug(ctx context.Context, slug string) (*store.Organization, error) {
	return db.findOrg(ctx, func(t *txn) string { return t.lookup(bOrgsSlug, []byte(slug)) })
}

// findOrg reads the organization whose id idOf finds ("" for none).
// Returns not_found.
func (db *DB) findOrg(ctx context.Context, idOf func(*txn) string) (*store.Organization, error) {
	out := new(store.Organization)
	err := db.view(ctx, func(t *txn) error {
		id := idOf(t)
		if id == "" {
			return store.NotFound("organization")
		}
		return t.mustGet(bOrgs, id, "organization", out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListOrganizations implements store.Organizations.
func (db *DB) ListOrganizations(ctx context.Context) ([]*store.Organization, error) {
	out := []*store.Organization{}
	err := db.view(ctx, func(t *txn) error {
		c := t.tx.Bucket(bOrgs).Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			o := new(store.Organization)
			if err := decode(bOrgs, k, v, o); err != nil {
				return err
			}
			out = append(out, o)
		}
		return nil
	})
	return out, err
}

// CreateOrganization implements store.Organizations.
func (db *DB) CreateOrganization(ctx context.Context, in store.CreateOrganizationInput) (*store.Organization, error) {
	name, err := store.CheckName("name", in.Name)
	if err != nil {
		return nil, err
	}
	in.Name = name
	var owner *store.Member
	if in.OwnerEmail != "" {
		m, err := db.NewMember(ctx, store.AddMemberInput{Email: in.OwnerEmail, Password: in.OwnerPassword, Role: store.RoleOwner})
		if err != nil {
			return nil, err
		}
		m.EmailVerified = true
		owner = m
	}
	var out *store.Organization
	err = db.update(ctx, func(t *txn) error {
		o, err := t.createOrg(in.Name, owner != nil)
		if err != nil {
			return err
		}
		if owner != nil {
			owner.OrgID = o.ID
			if err := t.insertMember(owner); err != nil {
				return err
			}
		}
		out = o
		return t.audit(auditEvent{Event: store.EventOrganizationCreated, OrgID: o.ID, Target: store.Target{Type: "organization", ID: o.ID}, Metadata: map[string]any{"name": o.Name}})
	})
	return out, err
}

// createOrg inserts an organization with a unique slug derived from its name.
func (t *txn) createOrg(name string, verified bool) (*store.Organization, error) {
	base := store.Slugify(name)
	if len(base) < 3 {
		base = "org-" + strings.Trim(base, "-")
		base = strings.TrimRight(base, "-")
	}
	if len(base) > 55 {
		base = strings.TrimRight(base[:55], "-")
	}
	slug := base
	for i := 2; t.lookup(bOrgsSlug, []byte(slug)) != ""; i++ {
		slug = fmt.Sprintf("%s-%d", base, i)
	}
	o := &store.Organization{ID: store.NewID(), Name: name, Slug: slug, EmailVerified: verified, CreatedAt: t.now, UpdatedAt: t.now}
	if err := t.put(bOrgs, o.ID, o); err != nil {
		return nil, err
	}
	return o, t.setUnique(bOrgsSlug, []byte(slug), o.ID)
}

// UpdateOrganization implements store.Organizations.
func (db *DB) UpdateOrganization(ctx context.Context, id string, upd store.OrganizationUpdate) (*store.Organization, error) {
	if upd.Name != nil {
		n, err := store.CheckName("name", *upd.Name)
		if err != nil {
			return nil, err
		}
		upd.Name = &n
	}
	out := new(store.Organization)
	err := db.update(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, id, "organization", out); err != nil {
			return err
		}
		if upd.Name == nil || *upd.Name == out.Name {
			return nil
		}
		out.Name, out.UpdatedAt = *upd.Name, t.now
		if err := t.put(bOrgs, id, out); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventOrganizationUpdated, OrgID: id, Target: store.Target{Type: "organization", ID: id}, Metadata: map[string]any{"name": out.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

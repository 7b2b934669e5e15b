package postgres

import (
	"context"
	"fmt"
	"strings"

	"licensectl/store"
)

var _ store.Organizations = (*DB)(nil)

// FindOrganization implements store.Organizations.
func (db *DB) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	return db.findOrg(ctx, `id = $1`, uuidOrNil(id))
}

// FindOrganizationBySlug implements store.OrganizationSlugs. Text that is
// no slug is not_found unread: PostgreSQL refuses some of it (a NUL).
func (db *DB) FindOrganizationBySlug(ctx context.Context, slug string) (*store.Organization, error) {
	if !store.ValidSlug(slug) {
		return nil, store.NotFound("organization")
	}
	return db.findOrg(ctx, `slug = $1`, slug)
}

// findOrg reads the organization whose row matches where ($1 is arg).
// Returns not_found.
func (db *DB) findOrg(ctx context.Context, where string, arg any) (*store.Organization, error) {
	var out *store.Organization
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE `+where, arg)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListOrganizations implements store.Organizations: newest first, as bolt
// walks its bucket.
func (db *DB) ListOrganizations(ctx context.Context) ([]*store.Organization, error) {
	out := []*store.Organization{}
	err := db.view(ctx, func(t *txn) error {
		all, err := docs[store.Organization](t, `SELECT doc FROM orgs ORDER BY id DESC`)
		out = append(out, all...)
		return err
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
		o, err := t.createOrg(store.NewID(), in.Name, owner != nil)
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
	if err != nil {
		return nil, err
	}
	return out, nil
}

// createOrg inserts organization id with a unique slug derived from its
// name: the first of base, base-2, base-3… that no organization holds. The
// unique constraint picks it, not a read before the write, so two servers
// creating "Acme" at once get acme and acme-2 rather than one failing.
func (t *txn) createOrg(id, name string, verified bool) (*store.Organization, error) {
	base := store.Slugify(name)
	if len(base) < 3 {
		base = "org-" + strings.Trim(base, "-")
		base = strings.TrimRight(base, "-")
	}
	if len(base) > 55 {
		base = strings.TrimRight(base[:55], "-")
	}
	o := &store.Organization{ID: id, Name: name, EmailVerified: verified, CreatedAt: t.now, UpdatedAt: t.now}
	for i := 1; ; i++ {
		o.Slug = base
		if i > 1 {
			o.Slug = fmt.Sprintf("%s-%d", base, i)
		}
		n, err := t.exec(`INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3) ON CONFLICT ON CONSTRAINT orgs_slug_key DO NOTHING`,
			o.ID, o.Slug, js(o))
		if err != nil {
			return nil, err
		}
		if n == 1 {
			return o, nil
		}
	}
}

// lockOrg loads an organization and locks its row until the transaction
// ends, for a change to its doc.
func (t *txn) lockOrg(id string) (*store.Organization, error) {
	return mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
}

// saveOrg writes an organization's doc; its slug never changes.
func (t *txn) saveOrg(o *store.Organization) error {
	_, err := t.exec(`UPDATE orgs SET doc = $2 WHERE id = $1`, o.ID, js(o))
	return err
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
	var out *store.Organization
	err := db.update(ctx, func(t *txn) error {
		o, err := t.lockOrg(id)
		if err != nil {
			return err
		}
		out = o
		if upd.Name == nil || *upd.Name == o.Name {
			return nil
		}
		o.Name, o.UpdatedAt = *upd.Name, t.now
		if err := t.saveOrg(o); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventOrganizationUpdated, OrgID: id, Target: store.Target{Type: "organization", ID: id}, Metadata: map[string]any{"name": o.Name}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

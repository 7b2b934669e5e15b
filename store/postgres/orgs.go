package postgres

import (
	"context"

	"licensectl/store"
)

var _ = conflictOn("orgs_slug_key", func() error { return store.Errorf(store.ECodeSlugTaken, "slug is taken") })

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

package bolt

import (
	"context"

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

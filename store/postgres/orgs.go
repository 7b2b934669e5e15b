package postgres

import (
	"context"

	"licensectl/store"
)

var _ store.Organizations = (*DB)(nil)

// FindOrganization implements store.Organizations.
func (db *DB) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	var out *store.Organization
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(id))
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

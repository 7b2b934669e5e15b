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

// InsertOrg implements store.Tx: the unique constraint picks the slug,
// not a read before the write, so two servers creating "Acme" at once get
// acme and acme-2 rather than one failing.
func (t *txn) InsertOrg(o *store.Organization) error {
	base := o.Slug
	for i := 1; ; i++ {
		o.Slug = store.NthSlug(base, i)
		n, err := t.exec(`INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3) ON CONFLICT ON CONSTRAINT orgs_slug_key DO NOTHING`,
			o.ID, o.Slug, js(o))
		if err != nil || n == 1 {
			return err
		}
	}
}

// saveOrg writes an organization's doc; its slug never changes.
func (t *txn) saveOrg(o *store.Organization) error {
	_, err := t.exec(`UPDATE orgs SET doc = $2 WHERE id = $1`, o.ID, js(o))
	return err
}

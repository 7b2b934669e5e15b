package bolt

import (
	"context"

	"licensectl/store"
)

var _ store.Organizations = (*DB)(nil)

// FindOrganization implements store.Organizations.
func (db *DB) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	out := new(store.Organization)
	err := db.view(ctx, func(t *txn) error { return t.mustGet(bOrgs, id, "organization", out) })
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

// InsertOrg implements store.Tx: the slug index, under the one writer,
// says which of the slugs offered is free.
func (t *txn) InsertOrg(o *store.Organization) error {
	base := o.Slug
	for i := 1; ; i++ {
		if o.Slug = store.NthSlug(base, i); t.lookup(bOrgsSlug, []byte(o.Slug)) == "" {
			break
		}
	}
	if err := t.put(bOrgs, o.ID, o); err != nil {
		return err
	}
	return t.setUnique(bOrgsSlug, []byte(o.Slug), o.ID)
}

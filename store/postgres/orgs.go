package postgres

import (
	"licensectl/store"
)

var _ = conflictOn("orgs_slug_key", func() error { return store.Errorf(store.ECodeSlugTaken, "slug is taken") })

var _ store.Organizations = (*DB)(nil)

// Org implements store.Tx.
func (t *txn) Org(id string) (*store.Organization, error) {
	return mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(id))
}

// OrgBySlug implements store.Tx.
func (t *txn) OrgBySlug(slug string) (*store.Organization, error) {
	return mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE slug = $1`, slug)
}

// Orgs implements store.Tx: newest first, as bolt walks its bucket.
func (t *txn) Orgs() ([]*store.Organization, error) {
	return docs[store.Organization](t, `SELECT doc FROM orgs ORDER BY id DESC`)
}

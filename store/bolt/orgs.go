package bolt

import (
	"licensectl/store"
)

var _ store.Organizations = (*DB)(nil)

// Org implements store.Tx.
func (t *txn) Org(id string) (*store.Organization, error) {
	o := new(store.Organization)
	if err := t.mustGet(bOrgs, id, "organization", o); err != nil {
		return nil, err
	}
	return o, nil
}

// OrgBySlug implements store.Tx: one get in the slug index.
func (t *txn) OrgBySlug(slug string) (*store.Organization, error) {
	id := t.lookup(bOrgsSlug, []byte(slug))
	if id == "" {
		return nil, store.NotFound("organization")
	}
	return t.Org(id)
}

// Orgs implements store.Tx.
func (t *txn) Orgs() ([]*store.Organization, error) {
	var out []*store.Organization
	c := t.tx.Bucket(bOrgs).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		o := new(store.Organization)
		if err := decode(bOrgs, k, v, o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

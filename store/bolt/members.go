package bolt

import (
	"slices"

	"licensectl/store"
)

// insertMember stores a new member; the e-mail is unique across all organizations.
func (t *txn) insertMember(m *store.Member) error {
	if t.lookup(bMembersEmail, []byte(m.Email)) != "" {
		return store.ErrMemberEmailTaken()
	}
	m.CreatedAt, m.UpdatedAt = t.now, t.now
	if err := t.put(bMembers, m.ID, m); err != nil {
		return err
	}
	if err := t.setUnique(bMembersEmail, []byte(m.Email), m.ID); err != nil {
		return err
	}
	if m.OrgID == "" {
		return nil
	}
	return t.index(bMembersOrg, idb(m.OrgID), m.ID)
}

var _ store.Members = (*DB)(nil)

// Members implements store.Tx: the index walks newest first, members list
// oldest first.
func (t *txn) Members(orgID string) ([]*store.Member, error) {
	out, err := listAll[store.Member](t, bMembersOrg, idb(orgID), bMembers)
	slices.Reverse(out)
	return out, err
}

// Member implements store.Tx.
func (t *txn) Member(id string) (*store.Member, error) {
	m := new(store.Member)
	if err := t.mustGet(bMembers, id, "member", m); err != nil {
		return nil, err
	}
	return m, nil
}

package bolt

import (
	"context"
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

// ListMembers implements store.Members.
func (db *DB) ListMembers(ctx context.Context, orgID string) ([]*store.Member, error) {
	var out []*store.Member
	err := db.view(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, orgID, "organization", new(store.Organization)); err != nil {
			return err
		}
		var err error
		out, err = listAll[store.Member](t, bMembersOrg, idb(orgID), bMembers)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(out) // the index walks newest first; members list oldest first
	if out == nil {
		out = []*store.Member{}
	}
	return out, nil
}

// FindMember implements store.Members.
func (db *DB) FindMember(ctx context.Context, orgID, id string) (*store.Member, error) {
	var out *store.Member
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = t.member(orgID, id)
		return err
	})
	return out, err
}

// member loads a member of organization orgID; another organization's member
// is not found, never forbidden.
func (t *txn) member(orgID, id string) (*store.Member, error) {
	m := new(store.Member)
	if err := t.mustGet(bMembers, id, "member", m); err != nil {
		return nil, err
	}
	if m.OrgID != orgID || orgID == "" {
		return nil, store.NotFound("member")
	}
	return m, nil
}

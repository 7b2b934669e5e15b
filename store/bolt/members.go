package bolt

import (
	"context"
	"slices"

	"licensectl/store"
)

// insertMember stores a new member; the e-mail is unique across all organizations.
func (t *txn) insertMember(m *store.Member) error {
	if t.lookup(bMembersEmail, []byte(m.Email)) != "" {
		return store.Errorf(store.ECodeEmailTaken, "an account with this e-mail already exists")
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

// RemoveMember implements store.Members. The member's dashboard sessions end
// with it.
func (db *DB) RemoveMember(ctx context.Context, orgID, id string) error {
	return db.update(ctx, func(t *txn) error {
		m, err := t.member(orgID, id)
		if err != nil {
			return err
		}
		if m.Role == store.RoleOwner {
			owners, err := t.countOwners(orgID)
			if err != nil {
				return err
			}
			if err := store.CheckOwnersLeft(owners); err != nil {
				return err
			}
		}
		if err := t.del(bMembers, m.ID); err != nil {
			return err
		}
		if err := t.delUnique(bMembersEmail, []byte(m.Email)); err != nil {
			return err
		}
		if err := t.unindex(bMembersOrg, idb(orgID), m.ID); err != nil {
			return err
		}
		if _, err := t.endDashSessions(m.ID); err != nil {
			return err
		}
		if err := t.del(bOnboarding, m.ID); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventMemberRemoved, OrgID: orgID, Target: store.Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"email": m.Email, "role": m.Role}})
	})
}

// countOwners counts the owners of an organization. Organizations have few
// members, so reading them all is cheaper than keeping a per-role index.
func (t *txn) countOwners(orgID string) (int, error) {
	ms, err := listAll[store.Member](t, bMembersOrg, idb(orgID), bMembers)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range ms {
		if m.Role == store.RoleOwner {
			n++
		}
	}
	return n, nil
}

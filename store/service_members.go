package store

import (
	"context"
	"strings"
)

// The member aggregate: the accounts of the dashboard and their roles.

// NewMember checks in and hashes its password outside any transaction:
// argon2id is slow by design and must hold neither the writer nor a
// connection. The member is not stored. Returns validation_failed.
func (sv *Service) NewMember(ctx context.Context, in AddMemberInput) (*Member, error) {
	email, err := NormalizeEmail("email", in.Email)
	if err != nil {
		return nil, err
	}
	if err := CheckRole("role", in.Role); err != nil {
		return nil, err
	}
	if err := CheckPassword("password", in.Password, email, sv.Passwords); err != nil {
		return nil, err
	}
	if sv.Hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	hash, err := sv.Hasher.Hash(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	return &Member{ID: NewID(), OrgID: in.OrgID, Email: email, PasswordHash: hash, FirstName: strings.TrimSpace(in.FirstName),
		LastName: strings.TrimSpace(in.LastName), Role: in.Role}, nil
}

// AddMember adds a member to an organization, created verified: the owner
// or admin who adds it vouches for the address. The tier's member limit is
// checked with the organization held. Returns validation_failed,
// not_found, email_taken, plan_limit_reached.
func (sv *Service) AddMember(ctx context.Context, in AddMemberInput) (*Member, error) {
	var err error
	if in.FirstName, err = CheckOptionalName("first_name", in.FirstName); err != nil {
		return nil, err
	}
	if in.LastName, err = CheckOptionalName("last_name", in.LastName); err != nil {
		return nil, err
	}
	m, err := sv.NewMember(ctx, in)
	if err != nil {
		return nil, err
	}
	m.EmailVerified = true
	err = sv.update(ctx, func(t Tx) error {
		if err := t.OrgExists(in.OrgID); err != nil {
			return err
		}
		if err := sv.EnforceLimit(t, in.OrgID, ResMembers, 1); err != nil {
			return err
		}
		if err := t.InsertMember(m); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventMemberAdded, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"email": m.Email, "role": m.Role}})
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// RemoveMember removes a member of the organization and ends its dashboard
// sessions. The organization's members are held first and the owners
// counted among them, so that of two removals of the last two owners on
// two servers the second finds one owner left and is refused
// (docs/design.md §12). Returns not_found, last_owner.
func (sv *Service) RemoveMember(ctx context.Context, orgID, id string) error {
	return sv.update(ctx, func(t Tx) error {
		if orgID == "" {
			return NotFound("member")
		}
		ms, err := t.LockOrgMembers(orgID)
		if err != nil {
			return err
		}
		var m *Member
		owners := 0
		for _, x := range ms {
			if x.ID == id {
				m = x
			}
			if x.Role == RoleOwner {
				owners++
			}
		}
		if m == nil {
			return NotFound("member")
		}
		if m.Role == RoleOwner {
			if err := CheckOwnersLeft(owners); err != nil {
				return err
			}
		}
		if err := t.DeleteMember(m); err != nil {
			return err
		}
		if _, err := t.EndDashboardSessions(m.ID); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventMemberRemoved, OrgID: orgID, Target: Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"email": m.Email, "role": m.Role}})
	})
}

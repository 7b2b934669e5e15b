package store

import (
	"context"
	"slices"
)

// The end-user aggregate: an end-user, its status and roles, and the
// sessions its status ends. Each change holds the user first
// (Tx.LockEndUser), so that a status or role change on one server never
// loses another's.

// SetEndUserStatus moves an end-user of the scope to status; leaving active
// revokes the user's sessions. Setting the status the user already has
// changes nothing. Returns validation_failed, not_found.
func (sv *Service) SetEndUserStatus(ctx context.Context, s Scope, id, status string) (*EndUser, error) {
	if err := UserStatus.Check(status); err != nil {
		return nil, err
	}
	var out *EndUser
	err := sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		prev, err := t.LockEndUser(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status, t.Now())
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.PutEndUser(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = t.RevokeSessions(OwnerUser, next.ID, RevokedStatus); err != nil {
				return err
			}
		}
		out = &next
		return t.Audit(AuditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

// AddEndUserRole attaches a role to an end-user of any application of the
// organization; attaching one it has changes nothing. Returns
// validation_failed, not_found.
func (sv *Service) AddEndUserRole(ctx context.Context, orgID, userID, role string) (*EndUserRoles, error) {
	if err := CheckKey("role_id", role); err != nil {
		return nil, err
	}
	return sv.changeRoles(ctx, orgID, userID, role, true)
}

// RemoveEndUserRole detaches a role from an end-user of any application of
// the organization; detaching one it lacks changes nothing. Returns
// not_found.
func (sv *Service) RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*EndUserRoles, error) {
	return sv.changeRoles(ctx, orgID, userID, role, false)
}

// changeRoles adds or removes one role of an end-user of the organization
// (another organization's user is not_found); a change that changes
// nothing writes nothing, so both calls are idempotent.
func (sv *Service) changeRoles(ctx context.Context, orgID, userID, role string, add bool) (*EndUserRoles, error) {
	var out *EndUserRoles
	err := sv.update(ctx, func(t Tx) error {
		prev, err := t.LockEndUser("", userID)
		if err != nil {
			return err
		}
		a, err := endUserApp(t, orgID, prev)
		if err != nil {
			return err
		}
		has := slices.Contains(prev.Roles, role)
		out = &EndUserRoles{UserID: prev.ID, Roles: orEmpty(prev.Roles)}
		if has == add {
			return nil
		}
		next := *prev
		event := EventUserRoleAdded
		if add {
			next.Roles = append(slices.Clone(prev.Roles), role)
		} else {
			next.Roles = slices.DeleteFunc(slices.Clone(prev.Roles), func(r string) bool { return r == role })
			event = EventUserRoleRemoved
		}
		next.UpdatedAt = t.Now()
		if err := t.PutEndUser(prev, &next); err != nil {
			return err
		}
		out.Roles = orEmpty(next.Roles)
		return t.Audit(AuditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{next.EnvID}, Target: Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"role_id": role}})
	})
	return out, err
}

// orEmpty returns list, or an empty list for nil, so JSON shows [].
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// RegisterEndUser creates an end-user in the scope's environment. The
// password is hashed before the transaction. Returns validation_failed,
// email_taken, not_found, application_disabled.
func (sv *Service) RegisterEndUser(ctx context.Context, s Scope, email, pw string) (*EndUser, error) {
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if err := CheckEndUserPassword(pw, sv.CommonPassword); err != nil {
		return nil, err
	}
	if sv.Hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	hash, err := sv.Hasher.Hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	id := NewID()
	var out *EndUser
	err = sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if err := a.CheckActive(); err != nil {
			return err
		}
		now := t.Now()
		u := &EndUser{ID: id, AppID: a.ID, EnvID: env.ID, Email: email, PasswordHash: hash, Status: UserActive,
			Roles: []string{}, CreatedAt: now, UpdatedAt: now}
		if err := t.InsertEndUser(u); err != nil {
			return err
		}
		out = u
		return t.Audit(AuditEvent{Event: EventUserRegistered, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"email": email}})
	})
	return out, err
}

// ErrEndUserEmailTaken is the refusal of a second end-user with one
// address in one environment.
func ErrEndUserEmailTaken() *Error {
	return Errorf(ECodeEmailTaken, "a user with this e-mail already exists")
}

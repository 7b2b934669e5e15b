package bolt

import (
	"context"
	"slices"

	"licensectl/store"
)

var _ store.EndUsers = (*DB)(nil)

// ListEndUsers implements store.EndUsers. A page costs offset+per_page index
// keys; total is a kept count. An e-mail filter is one index get.
func (db *DB) ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error) {
	if err := f.CheckEndUsers(); err != nil {
		return nil, err
	}
	var byEmail func(*txn, string) string
	if f.Email != "" {
		byEmail = func(t *txn, envID string) string { return t.endUserByEmail(envID, f.Email) }
	}
	return listEnvPage(ctx, db, s, f, bEndUsersEnv, bEndUsersEnvStatus, bEndUsers, byEmail, func(u *store.EndUser) string { return u.Status })
}

// SetEndUserStatus implements store.EndUsers. Setting the status the user
// already has changes nothing.
func (db *DB) SetEndUserStatus(ctx context.Context, s store.Scope, id, status string) (*store.EndUser, error) {
	if err := store.UserStatus.Check(status); err != nil {
		return nil, err
	}
	var out *store.EndUser
	err := db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prev, err := t.endUser(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status, t.now)
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.saveEndUser(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = t.revokeSessions(bSessionsUser, next.ID, store.RevokedStatus); err != nil {
				return err
			}
		}
		out = &next
		return t.audit(auditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: store.Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

// orgEndUser loads an end-user of any application of the organization, with
// that application; another organization's user is not_found.
func (t *txn) orgEndUser(orgID, id string) (*store.EndUser, *store.Application, error) {
	u := new(store.EndUser)
	if err := t.mustGet(bEndUsers, id, "user", u); err != nil {
		return nil, nil, err
	}
	a := new(store.Application)
	if err := t.mustGet(bApps, u.AppID, "user", a); err != nil {
		return nil, nil, err
	}
	if a.OrgID != orgID {
		return nil, nil, store.NotFound("user")
	}
	return u, a, nil
}

// FindEndUser returns an end-user of any application of the organization.
// The server uses it to keep application secrets to their own application's
// users. Returns not_found.
func (db *DB) FindEndUser(ctx context.Context, orgID, id string) (*store.EndUser, error) {
	var out *store.EndUser
	err := db.view(ctx, func(t *txn) (err error) {
		out, _, err = t.orgEndUser(orgID, id)
		return err
	})
	return out, err
}

// AddEndUserRole implements store.EndUsers.
func (db *DB) AddEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	if err := store.CheckKey("role_id", role); err != nil {
		return nil, err
	}
	return db.changeRoles(ctx, orgID, userID, role, true)
}

// RemoveEndUserRole implements store.EndUsers.
func (db *DB) RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	return db.changeRoles(ctx, orgID, userID, role, false)
}

// changeRoles adds or removes one role; a change that changes nothing writes
// nothing, so both calls are idempotent.
func (db *DB) changeRoles(ctx context.Context, orgID, userID, role string, add bool) (*store.EndUserRoles, error) {
	var out *store.EndUserRoles
	err := db.update(ctx, func(t *txn) error {
		prev, a, err := t.orgEndUser(orgID, userID)
		if err != nil {
			return err
		}
		has := slices.Contains(prev.Roles, role)
		out = &store.EndUserRoles{UserID: prev.ID, Roles: nonNil(prev.Roles)}
		if has == add {
			return nil
		}
		next := *prev
		event := store.EventUserRoleAdded
		if add {
			next.Roles = append(slices.Clone(prev.Roles), role)
		} else {
			next.Roles, _ = without(prev.Roles, role)
			event = store.EventUserRoleRemoved
		}
		next.UpdatedAt = t.now
		if err := t.saveEndUser(prev, &next); err != nil {
			return err
		}
		out.Roles = nonNil(next.Roles)
		return t.audit(auditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{next.EnvID}, Target: store.Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"role_id": role}})
	})
	return out, err
}

// nonNil returns list, or an empty list for nil, so JSON shows [].
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

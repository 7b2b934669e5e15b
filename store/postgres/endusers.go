package postgres

import (
	"context"
	"slices"
	"strings"

	"licensectl/store"
)

var _ store.EndUsers = (*DB)(nil)

// ListEndUsers implements store.EndUsers: keyset pages newest first, or the
// one user an e-mail names.
func (db *DB) ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error) {
	if err := f.CheckEndUsers(); err != nil {
		return nil, err
	}
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *store.Page[*store.EndUser]
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if f.Email != "" {
			u, err := doc[store.EndUser](t, `SELECT doc FROM end_users WHERE env_id = $1 AND email = $2`,
				env.ID, strings.ToLower(strings.TrimSpace(f.Email)))
			if err != nil {
				return err
			}
			out, err = licLookupPage(licFound(u, f.Status, func(u *store.EndUser) string { return u.Status }), f.PageRequest)
			return err
		}
		where, args := licStatusWhere(env.ID, f.Status)
		out, err = listPage[store.EndUser](t, "end_users", where, args, f.PageRequest)
		return err
	})
	return out, err
}

// lockEndUser loads an end-user with its row locked until the transaction
// ends: a status or role change on one server never loses another's.
func (t *txn) lockEndUser(id string) (*store.EndUser, error) {
	return mustDoc[store.EndUser](t, "user", `SELECT doc FROM end_users WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
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
		prev, err := t.lockEndUser(id)
		if err != nil {
			return err
		}
		if prev.EnvID != env.ID {
			return store.NotFound("user")
		}
		next := *prev
		change, err := next.SetStatus(status, t.now)
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.saveEndUser(&next, false); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = t.revokeSessions("user_id", next.ID, store.RevokedStatus); err != nil {
				return err
			}
		}
		out = &next
		return t.audit(auditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: store.Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
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

// changeRoles adds or removes one role of an end-user of any application of
// the organization (another organization's user is not_found); a change
// that changes nothing writes nothing, so both calls are idempotent.
func (db *DB) changeRoles(ctx context.Context, orgID, userID, role string, add bool) (*store.EndUserRoles, error) {
	var out *store.EndUserRoles
	err := db.update(ctx, func(t *txn) error {
		prev, err := t.lockEndUser(userID)
		if err != nil {
			return err
		}
		a, err := doc[store.Application](t, `SELECT doc FROM apps WHERE id = $1`, uuidOrNil(prev.AppID))
		if err != nil {
			return err
		}
		if a == nil || a.OrgID != orgID {
			return store.NotFound("user")
		}
		has := slices.Contains(prev.Roles, role)
		out = &store.EndUserRoles{UserID: prev.ID, Roles: licNonNil(prev.Roles)}
		if has == add {
			return nil
		}
		next := *prev
		event := store.EventUserRoleAdded
		if add {
			next.Roles = append(slices.Clone(prev.Roles), role)
		} else {
			next.Roles = slices.DeleteFunc(slices.Clone(prev.Roles), func(r string) bool { return r == role })
			event = store.EventUserRoleRemoved
		}
		next.UpdatedAt = t.now
		if err := t.saveEndUser(&next, false); err != nil {
			return err
		}
		out.Roles = licNonNil(next.Roles)
		return t.audit(auditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{next.EnvID}, Target: store.Target{Type: "user", ID: next.ID},
			Metadata: map[string]any{"role_id": role}})
	})
	return out, err
}

// licNonNil returns list, or an empty list for nil, so JSON shows [].
func licNonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

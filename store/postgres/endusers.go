package postgres

import (
	"context"
	"strings"

	"licensectl/store"
)

var _ = conflictOn("end_users_env_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })

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
			out, err = store.PageOf(licFound(u, f.Status, func(u *store.EndUser) string { return u.Status }), f.PageRequest)
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

// endUser loads an end-user of environment envID.
func (t *txn) endUser(envID, id string) (*store.EndUser, error) {
	u, err := mustDoc[store.EndUser](t, "user", `SELECT doc FROM end_users WHERE id = $1`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	if envID != "" && u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, nil
}

// saveEndUser writes u (insert when new).
func (t *txn) saveEndUser(u *store.EndUser, isNew bool) error {
	if isNew {
		_, err := t.exec(`INSERT INTO end_users (id, app_id, env_id, email, status, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
			u.ID, u.AppID, u.EnvID, u.Email, u.Status, js(u))
		return err
	}
	_, err := t.exec(`UPDATE end_users SET email = $2, status = $3, doc = $4 WHERE id = $1`, u.ID, u.Email, u.Status, js(u))
	return err
}

// FindEndUser implements store.EndUserAccounts: an end-user of any
// application of the organization, in one query; another organization's
// user is not_found.
func (db *DB) FindEndUser(ctx context.Context, orgID, id string) (*store.EndUser, error) {
	var out *store.EndUser
	err := db.view(ctx, func(t *txn) error {
		var raw []byte
		err := t.tx.QueryRow(t.ctx, `SELECT u.doc FROM end_users u JOIN apps a ON a.id = u.app_id WHERE u.id = $1 AND a.org_id = $2`,
			uuidOrNil(id), uuidOrNil(orgID)).Scan(&raw)
		if noRows(err) {
			return store.NotFound("user")
		}
		if err != nil {
			return err
		}
		out, err = decode[store.EndUser](raw)
		return err
	})
	return out, err
}

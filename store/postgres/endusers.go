package postgres

import (
	"licensectl/store"
)

var _ = conflictOn("end_users_env_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })

var _ store.EndUsers = (*DB)(nil)

// EndUserPage implements store.Tx: keyset pages newest first.
func (t *txn) EndUserPage(envID, status string, p store.PageRequest) (*store.Page[*store.EndUser], error) {
	where, args := envStatusWhere(envID, status)
	return listPage[store.EndUser](t, "end_users", where, args, p)
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

package postgres

import (
	"context"

	"licensectl/store"
)

var _ store.EndUserAccounts = (*DB)(nil)

// InsertEndUser implements store.Tx: the unique index decides between two
// servers registering the same address at once.
func (t *txn) InsertEndUser(u *store.EndUser) error {
	err := t.saveEndUser(u, true)
	if isUnique(err, "end_users_env_email_key") {
		return store.ErrEndUserEmailTaken()
	}
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

package postgres

import (
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

package postgres

import (
	"licensectl/store"
)

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

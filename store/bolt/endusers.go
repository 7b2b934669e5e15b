package bolt

import (
	"licensectl/store"
)

var _ store.EndUsers = (*DB)(nil)

// EndUserPage implements store.Tx. A page costs offset+per_page index keys;
// total is a kept count.
func (t *txn) EndUserPage(envID, status string, p store.PageRequest) (*store.Page[*store.EndUser], error) {
	return envPage[store.EndUser](t, bEndUsersEnv, bEndUsersEnvStatus, bEndUsers, envID, status, p)
}

package bolt

import (
	"strings"

	"licensectl/store"
)

var _ store.EndUsers = (*DB)(nil)

// EndUserPage implements store.Tx. A page costs offset+per_page index keys;
// total is a kept count.
func (t *txn) EndUserPage(envID, status string, p store.PageRequest) (*store.Page[*store.EndUser], error) {
	return envPage[store.EndUser](t, bEndUsersEnv, bEndUsersEnvStatus, bEndUsers, envID, status, p)
}

// saveEndUser writes u and its indexes.
func (t *txn) saveEndUser(prev, u *store.EndUser) error {
	if err := t.put(bEndUsers, u.ID, u); err != nil {
		return err
	}
	env := idb(u.EnvID)
	if prev == nil {
		if err := t.index(bEndUsersEnv, env, u.ID); err != nil {
			return err
		}
		if err := t.setUnique(bEndUsersEmail, key(env, []byte(u.Email)), u.ID); err != nil {
			return err
		}
	} else if prev.Status != u.Status {
		if err := t.unindex(bEndUsersEnvStatus, key(env, str(prev.Status)), u.ID); err != nil {
			return err
		}
	}
	return t.index(bEndUsersEnvStatus, key(env, str(u.Status)), u.ID)
}

// endUser loads an end-user of environment envID ("" for any).
func (t *txn) endUser(envID, id string) (*store.EndUser, error) {
	u := new(store.EndUser)
	if err := t.mustGet(bEndUsers, id, "user", u); err != nil {
		return nil, err
	}
	if envID != "" && u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, nil
}

// endUserIDByEmail returns the id of the end-user of env with this address, in
// any letter case, or "".
func (t *txn) endUserIDByEmail(envID, email string) string {
	return t.lookup(bEndUsersEmail, key(idb(envID), []byte(strings.ToLower(strings.TrimSpace(email)))))
}

package bolt

import (
	"context"
	"strings"

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
		byEmail = func(t *txn, envID string) string { return t.endUserIDByEmail(envID, f.Email) }
	}
	return listEnvPage(ctx, db, s, f, bEndUsersEnv, bEndUsersEnvStatus, bEndUsers, byEmail, func(u *store.EndUser) string { return u.Status })
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

// endUser loads an end-user of environment env.
func (t *txn) endUser(envID, id string) (*store.EndUser, error) {
	u := new(store.EndUser)
	if err := t.mustGet(bEndUsers, id, "user", u); err != nil {
		return nil, err
	}
	if u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, nil
}

// endUserIDByEmail returns the id of the end-user of env with this address, in
// any letter case, or "".
func (t *txn) endUserIDByEmail(envID, email string) string {
	return t.lookup(bEndUsersEmail, key(idb(envID), []byte(strings.ToLower(strings.TrimSpace(email)))))
}

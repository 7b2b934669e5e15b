package postgres

import (
	"context"

	"licensectl/store"
	"licensectl/store/password"
)

var _ store.EndUserAccounts = (*DB)(nil)

// RegisterEndUser implements store.EndUserAccounts: it creates an end-user
// in the scope's environment. The password is hashed before the
// transaction. Returns validation_failed, email_taken, not_found,
// application_disabled.
func (db *DB) RegisterEndUser(ctx context.Context, s store.Scope, email, pw string) (*store.EndUser, error) {
	email, err := store.NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if err := store.CheckEndUserPassword(pw, password.IsCommon); err != nil {
		return nil, err
	}
	if db.Hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	hash, err := db.Hasher.Hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	var out *store.EndUser
	err = db.update(ctx, func(t *txn) error {
		a, err := t.lockApp(s.App(), appLockWrite)
		if err != nil {
			return err
		}
		env, err := s.Environment(a)
		if err != nil {
			return err
		}
		if err := a.CheckActive(); err != nil {
			return err
		}
		u := &store.EndUser{ID: id, AppID: a.ID, EnvID: env.ID, Email: email, PasswordHash: hash, Status: store.UserActive,
			Roles: []string{}, CreatedAt: t.now, UpdatedAt: t.now}
		// The unique index decides between two servers registering the
		// same address at once.
		if err := t.saveEndUser(u, true); err != nil {
			if isUnique(err, "end_users_env_email_key") {
				return store.Errorf(store.ECodeEmailTaken, "a user with this e-mail already exists")
			}
			return err
		}
		out = u
		return t.audit(auditEvent{Event: store.EventUserRegistered, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: store.Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"email": email}})
	})
	return out, err
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

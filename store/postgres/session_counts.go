package postgres

import (
	"context"

	"licensectl/store"
)

// CountLicenseSessions implements store.Licenses.
func (db *DB) CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error) {
	return db.countSessions(ctx, s, "license_id", licenseID, func(t *txn, envID string) error {
		_, err := t.license(envID, licenseID)
		return err
	})
}

// countSessions counts the live sessions of an owner (column license_id or
// device_id, both indexed): not revoked and inside both their idle and
// their absolute lifetime. An expired access token alone does not end a
// session, since a refresh renews it.
func (db *DB) countSessions(ctx context.Context, s store.Scope, column, ownerID string, exists func(t *txn, envID string) error) (int, error) {
	n := 0
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if err := exists(t, env.ID); err != nil {
			return err
		}
		n, err = t.liveSessions(column, ownerID)
		return err
	})
	return n, err
}

// liveSessions counts the live sessions of an owner (column license_id or
// device_id, both indexed).
func (t *txn) liveSessions(column, ownerID string) (int, error) {
	if column != "license_id" && column != "device_id" {
		panic("liveSessions: no such owner column " + column)
	}
	return t.count(`SELECT count(*) FROM sessions WHERE `+column+` = $1 AND revoked_at IS NULL
		AND refresh_expires_at > $2 AND absolute_expires_at > $2`, ownerID, t.now)
}

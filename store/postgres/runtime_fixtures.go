package postgres

import (
	"context"

	"licensectl/store"
)

// SessionRevokeReason implements storetest.Fixtures: why a runtime session
// was revoked, or "" while it is live. Returns not_found.
func (db *DB) SessionRevokeReason(ctx context.Context, id string) (string, error) {
	var revoked bool
	var reason string
	err := db.pool.QueryRow(ctx, `SELECT revoked_at IS NOT NULL, revoke_reason FROM sessions WHERE id = $1`, uuidOrNil(id)).Scan(&revoked, &reason)
	if noRows(err) {
		return "", store.NotFound("session")
	}
	if err != nil || !revoked {
		return "", err
	}
	return reason, nil
}

// SeedLegacyRefreshToken implements storetest.Fixtures: it gives a live
// session a new refresh token of the form releases before `<session
// id>.<secret>` issued (32 random bytes, no dot), stored as they stored it:
// hashed, found by its hash. Tests use it to show that such tokens keep
// working until they expire.
func (db *DB) SeedLegacyRefreshToken(ctx context.Context, sessionID string) (string, error) {
	tok := newTokenSeed(sessionID).Secret
	n := int64(0)
	err := db.update(ctx, func(t *txn) (err error) {
		n, err = t.exec(`UPDATE sessions SET refresh_hash = $2 WHERE id = $1`, uuidOrNil(sessionID), store.HashSecret(tok))
		return err
	})
	if err == nil && n == 0 {
		err = store.NotFound("session")
	}
	if err != nil {
		return "", err
	}
	return tok, nil
}

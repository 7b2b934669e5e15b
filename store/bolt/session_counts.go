package bolt

import (
	"context"

	"licensectl/store"
)

// CountLicenseSessions implements store.Licenses.
func (db *DB) CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error) {
	return db.countSessions(ctx, s, bSessionsLicense, licenseID, func(t *txn, envID string) error {
		_, err := t.license(envID, licenseID)
		return err
	})
}

// CountDeviceSessions implements store.Devices.
func (db *DB) CountDeviceSessions(ctx context.Context, s store.Scope, deviceID string) (int, error) {
	return db.countSessions(ctx, s, bSessionsDevice, deviceID, func(t *txn, envID string) error {
		_, err := t.device(envID, deviceID)
		return err
	})
}

// countSessions counts the live sessions an owner's session index lists.
// The index is not counted (sessions.go keeps it out of bCounts to spare
// every activation a page) and liveness depends on the clock and on
// revocation, so each listed session is read; the list holds only sessions
// younger than the absolute lifetime, as SweepSessions deletes older ones
// with their index keys.
func (db *DB) countSessions(ctx context.Context, s store.Scope, index []byte, ownerID string, exists func(t *txn, envID string) error) (int, error) {
	n := 0
	err := db.view(ctx, func(t *txn) error {
		n = 0
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if err := exists(t, env.ID); err != nil {
			return err
		}
		for _, sid := range t.all(index, idb(ownerID)) {
			rec := new(sessionRecord)
			if err := t.mustGet(bSessions, sid, "session", rec); err != nil {
				return err
			}
			if rec.live(t) {
				n++
			}
		}
		return nil
	})
	return n, err
}

// live reports whether a session's refresh token can still be used: not
// revoked and inside both its idle and its absolute lifetime. An expired
// access token alone does not end it, since a refresh renews that.
func (s *sessionRecord) live(t *txn) bool {
	return s.RevokedAt == nil && t.now.Before(s.RefreshExpiresAt) && t.now.Before(s.AbsoluteExpires)
}

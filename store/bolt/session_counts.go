package bolt

import (
	"context"

	"licensectl/store"
)

// CountLicenseSessions implements store.Licenses.
func (db *DB) CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error) {
	return db.countSessions(ctx, s, licenseID, func(t *txn, envID string) ([]string, error) {
		if _, err := t.license(envID, licenseID); err != nil {
			return nil, err
		}
		return t.licenseSessionCandidates(licenseID), nil
	})
}

// countSessions counts the live sessions among those listed returns, only
// those opened on licenseID unless it is "". The session indexes are not
// counted (sessions.go keeps them out of bCounts to spare every activation
// a page) and liveness depends on the clock and on revocation, so each
// listed session is read; the lists hold only sessions younger than the
// absolute lifetime, as SweepSessions deletes older ones with their index
// keys.
func (db *DB) countSessions(ctx context.Context, s store.Scope, licenseID string, listed func(t *txn, envID string) ([]string, error)) (int, error) {
	n := 0
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		sids, err := listed(t, env.ID)
		if err != nil {
			return err
		}
		n, err = t.liveSessions(sids, licenseID)
		return err
	})
	return n, err
}

// liveSessions counts the live sessions among sids, only those opened on
// licenseID unless it is "".
func (t *txn) liveSessions(sids []string, licenseID string) (int, error) {
	n := 0
	for _, sid := range sids {
		rec := new(sessionRecord)
		if err := t.mustGet(bSessions, sid, "session", rec); err != nil {
			return 0, err
		}
		if rec.live(t) && (licenseID == "" || rec.LicenseID == licenseID) {
			n++
		}
	}
	return n, nil
}

// live reports whether a session's refresh token can still be used: not
// revoked and inside both its idle and its absolute lifetime. An expired
// access token alone does not end it, since a refresh renews that.
func (s *sessionRecord) live(t *txn) bool {
	return s.RevokedAt == nil && t.now.Before(s.RefreshExpiresAt) && t.now.Before(s.AbsoluteExpiresAt)
}

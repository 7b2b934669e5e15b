package bolt

// LiveLicenseSessions implements store.Tx. The session indexes are not
// counted (sessions.go keeps them out of bCounts to spare every activation
// a page) and liveness depends on the clock and on revocation, so each
// listed session is read; the lists hold only sessions younger than the
// absolute lifetime, as the sweep deletes older ones with their index keys.
func (t *txn) LiveLicenseSessions(licenseID string) (int, error) {
	return t.liveSessions(t.licenseSessionCandidates(licenseID), licenseID)
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

package bolt

import "bytes"

// revokeSessions revokes every live session listed under owner in a session
// index (bSessionsUser or bSessionsDevice). It returns how many it revoked.
func (t *txn) revokeSessions(index []byte, ownerID, reason string) (int, error) {
	return t.revokeListed(t.all(index, idb(ownerID)), reason, "")
}

// revokeLicenseSessions revokes the live sessions opened on a license.
func (t *txn) revokeLicenseSessions(licenseID, reason string) (int, error) {
	return t.revokeListed(t.licenseSessionCandidates(licenseID), reason, licenseID)
}

// licenseSessionCandidates lists every session of the devices bound to a
// license, of which those naming the license are its sessions. A license
// has no session index of its own (schema version 11 dropped it, a random
// page per activation): its sessions are found through its bindings, and a
// session outlives its device's binding only revoked (a reset revokes it).
func (t *txn) licenseSessionCandidates(licenseID string) []string {
	var out []string
	prefix := idb(licenseID)
	c := t.tx.Bucket(bLicDevices).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, t.all(bSessionsDevice, k[len(prefix):])...)
	}
	return out
}

// revokeListed revokes the live sessions among sids, only those opened on
// licenseID unless it is "", and returns how many it revoked.
func (t *txn) revokeListed(sids []string, reason, licenseID string) (int, error) {
	n := 0
	for _, sid := range sids {
		s := new(sessionRecord)
		if err := t.mustGet(bSessions, sid, "session", s); err != nil {
			return n, err
		}
		if s.RevokedAt != nil || (licenseID != "" && s.LicenseID != licenseID) {
			continue
		}
		now := t.now
		s.RevokedAt, s.RevokeReason = &now, reason
		if err := t.put(bSessions, sid, s); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

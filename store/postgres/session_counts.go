package postgres

// LiveLicenseSessions implements store.Tx.
func (t *txn) LiveLicenseSessions(licenseID string) (int, error) {
	return t.liveSessions("license_id", licenseID)
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

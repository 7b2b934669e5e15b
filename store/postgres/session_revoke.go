package postgres

// revokeSessions revokes every live session of one owner: column is
// license_id, user_id or device_id. It returns how many it revoked.
func (t *txn) revokeSessions(column, ownerID, reason string) (int, error) {
	switch column {
	case "license_id", "user_id", "device_id":
	default:
		panic("revokeSessions: no such owner column " + column)
	}
	n, err := t.exec(`UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE `+column+` = $1 AND revoked_at IS NULL`,
		uuidOrNil(ownerID), t.now, reason)
	return int(n), err
}

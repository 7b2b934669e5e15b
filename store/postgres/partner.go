package postgres

import (
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Partners = (*DB)(nil)

// DropUnverifiedLinks removes the identities linked to the member while its
// address was unverified and returns how many there were.
func (t *txn) DropUnverifiedLinks(memberID string) (int, error) {
	n, err := t.exec(`DELETE FROM partner_identities WHERE member_id = $1 AND coalesce((doc->>'v')::boolean, false) = false`, memberID)
	return int(n), err
}

// InsertPartnerAttempt implements store.Tx. Expired attempts are deleted
// first; the per-address limit of the account calls keeps the table to the
// attempts of the last ten minutes.
func (t *txn) InsertPartnerAttempt(state string, ttl time.Duration) error {
	if _, err := t.exec(`DELETE FROM partner_attempts WHERE expires_at <= $1`, t.now); err != nil {
		return err
	}
	h := store.SumSecret(state)
	_, err := t.exec(`INSERT INTO partner_attempts (hash, expires_at) VALUES ($1, $2)
		ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at`, h[:], t.now.Add(ttl))
	return err
}

// SpendPartnerAttempt implements store.Tx: the conditional DELETE is the
// spending.
func (t *txn) SpendPartnerAttempt(state string) (bool, error) {
	h := store.SumSecret(state)
	n, err := t.exec(`DELETE FROM partner_attempts WHERE hash = $1 AND expires_at > $2`, h[:], t.now)
	return n == 1, err
}

// LockPartnerLink implements store.Tx: a transaction-scoped advisory lock
// on the identity, taken whether or not it is linked yet, so that the
// second of two first sign-ins finds the first's link.
func (t *txn) LockPartnerLink(issuer, subject string) (string, error) {
	if _, err := t.exec(`SELECT pg_advisory_xact_lock(hashtext('licensectl partner ' || $1 || chr(1) || $2))`, issuer, subject); err != nil {
		return "", err
	}
	var memberID string
	err := t.tx.QueryRow(t.ctx, `SELECT member_id::text FROM partner_identities WHERE issuer = $1 AND subject = $2`, issuer, subject).Scan(&memberID)
	if noRows(err) {
		return "", nil
	}
	return memberID, err
}

// InsertPartnerLink implements store.Tx.
func (t *txn) InsertPartnerLink(issuer, subject, memberID string, accountVerified bool) error {
	_, err := t.exec(`INSERT INTO partner_identities (issuer, subject, member_id, doc) VALUES ($1, $2, $3, $4)`,
		issuer, subject, memberID, js(storedoc.PartnerIdentity{MemberID: memberID, LinkedAt: t.now, AccountVerified: accountVerified}))
	return err
}

// DeletePartnerLink implements store.Tx.
func (t *txn) DeletePartnerLink(issuer, subject string) error {
	_, err := t.exec(`DELETE FROM partner_identities WHERE issuer = $1 AND subject = $2`, issuer, subject)
	return err
}

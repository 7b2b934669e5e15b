package postgres

import (
	"strings"
	"time"

	"licensectl/store"
)

// EndUser implements store.PortalTx.
func (t *txn) EndUser(envID, id string) (*store.EndUser, error) { return t.endUser(envID, id) }

// EndUserByEmail implements store.PortalTx.
func (t *txn) EndUserByEmail(envID, email string) (*store.EndUser, error) {
	return mustDoc[store.EndUser](t, "user", `SELECT doc FROM end_users WHERE env_id = $1 AND email = $2`,
		uuidOrNil(envID), strings.ToLower(strings.TrimSpace(email)))
}

// MailToken implements store.PortalTx.
func (t *txn) MailToken(plain string) (*store.MailToken, error) {
	h := store.SumSecret(plain)
	var k store.MailToken
	var used *time.Time
	err := t.tx.QueryRow(t.ctx, `SELECT purpose, member_id::text, expires_at, used_at FROM mail_tokens WHERE hash = $1`, h[:]).
		Scan(&k.Purpose, &k.SubjectID, &k.ExpiresAt, &used)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if used != nil {
		k.UsedAt = *used
	}
	return &k, nil
}

// SpendMailToken implements store.PortalTx. The conditional UPDATE is the
// spending: of two servers presenting one token, the second waits for the
// first's commit, then finds it used.
func (t *txn) SpendMailToken(plain, purpose string) (string, error) {
	invalid := store.ErrMailLinkInvalid()
	if plain == "" {
		return "", invalid
	}
	h := store.SumSecret(plain)
	var subject string
	err := t.tx.QueryRow(t.ctx, `UPDATE mail_tokens SET used_at = $3
		WHERE hash = $1 AND purpose = $2 AND expires_at > $3 AND used_at IS NULL RETURNING member_id::text`,
		h[:], purpose, t.now).Scan(&subject)
	if noRows(err) {
		return "", invalid
	}
	return subject, err
}

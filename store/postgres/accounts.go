package postgres

import (
	"time"

	"licensectl/store"
)

var (
	_ store.Accounts     = (*DB)(nil)
	_ store.MachineFiles = (*DB)(nil)
)

// mailTokenDoc is the doc of a mail_tokens row: what its columns (hash,
// member, purpose, expiry, spending) leave out.
type mailTokenDoc struct {
	CreatedAt time.Time `json:"created_at"`
}

// PutMailToken implements store.PortalTx. Expired tokens are deleted
// first, in the same transaction: the table then holds only the tokens of the last
// day, which per-address rate limits keep small, and no background sweeper
// is needed.
func (t *txn) PutMailToken(plain, purpose, subjectID string, ttl time.Duration) error {
	if _, err := t.exec(`DELETE FROM mail_tokens WHERE expires_at <= $1`, t.now); err != nil {
		return err
	}
	h := store.SumSecret(plain)
	_, err := t.exec(`INSERT INTO mail_tokens (hash, member_id, purpose, expires_at, doc) VALUES ($1, $2, $3, $4, $5)`,
		h[:], subjectID, purpose, t.now.Add(ttl), js(mailTokenDoc{CreatedAt: t.now}))
	return err
}

// MailTokenMember resolves a token of purpose to its account without
// spending it. Unknown, expired, spent, misdirected tokens and tokens of
// removed accounts are all invalid_token, alike.
func (t *txn) MailTokenMember(plain, purpose string) (*store.Member, error) {
	if plain == "" {
		return nil, store.ErrMailLinkInvalid()
	}
	h := store.SumSecret(plain)
	m, err := doc[store.Member](t, `SELECT m.doc FROM mail_tokens k JOIN members m ON m.id = k.member_id
		WHERE k.hash = $1 AND k.purpose = $2 AND k.expires_at > $3 AND k.used_at IS NULL`, h[:], purpose, t.now)
	if err == nil && m == nil {
		err = store.ErrMailLinkInvalid()
	}
	return m, err
}

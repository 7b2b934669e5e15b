package bolt

import (
	"time"

	"licensectl/store"
)

var (
	_ store.Accounts     = (*DB)(nil)
	_ store.MachineFiles = (*DB)(nil)
)

// mailToken is a token sent by mail, stored under the SHA-256 of its
// plaintext so that a copy of the file does not hold usable tokens.
type mailToken struct {
	Purpose   string
	MemberID  string
	CreatedAt time.Time
	ExpiresAt time.Time
	// UsedAt is set when the token is spent; a spent token is kept until it
	// expires, so that a page can say "already used" rather than "invalid".
	UsedAt time.Time `json:",omitzero"`
}

// PutMailToken implements store.PortalTx. Expired tokens are swept first,
// in the same transaction: the bucket then holds only the tokens of the last
// day, which per-address rate limits keep small, so the walk stays cheap and
// no background sweeper is needed.
func (t *txn) PutMailToken(plain, purpose, subjectID string, ttl time.Duration) error {
	err := t.sweep(bMailTokens, func(k, v []byte) (bool, error) {
		var old mailToken
		err := decode(bMailTokens, k, v, &old)
		return err == nil && !t.now.Before(old.ExpiresAt), err
	})
	if err != nil {
		return err
	}
	rec := mailToken{Purpose: purpose, MemberID: subjectID, CreatedAt: t.now, ExpiresAt: t.now.Add(ttl)}
	return t.putAt(bMailTokens, []byte(store.HashSecret(plain)), &rec)
}

// MailTokenMember resolves a token of purpose to its account without
// spending it. Unknown, expired, misdirected tokens and tokens of removed
// accounts are all invalid_token, alike.
func (t *txn) MailTokenMember(plain, purpose string) (*store.Member, error) {
	invalid := store.ErrMailLinkInvalid()
	if plain == "" {
		return nil, invalid
	}
	var rec mailToken
	ok, err := t.getAt(bMailTokens, []byte(store.HashSecret(plain)), &rec)
	if err != nil {
		return nil, err
	}
	if !ok || rec.Purpose != purpose || !t.now.Before(rec.ExpiresAt) || !rec.UsedAt.IsZero() {
		return nil, invalid
	}
	m := new(store.Member)
	ok, err = t.get(bMembers, rec.MemberID, m)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid
	}
	return m, nil
}

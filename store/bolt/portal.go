package bolt

import (
	"licensectl/store"
)

// EndUser implements store.PortalTx.
func (t *txn) EndUser(envID, id string) (*store.EndUser, error) { return t.endUser(envID, id) }

// EndUserByEmail implements store.PortalTx.
func (t *txn) EndUserByEmail(envID, email string) (*store.EndUser, error) {
	id := t.endUserIDByEmail(envID, email)
	if id == "" {
		return nil, store.NotFound("user")
	}
	return t.endUser(envID, id)
}

// MailToken implements store.PortalTx.
func (t *txn) MailToken(plain string) (*store.MailToken, error) {
	var rec mailToken
	ok, err := t.getAt(bMailTokens, []byte(store.HashSecret(plain)), &rec)
	if err != nil || !ok {
		return nil, err
	}
	return &store.MailToken{Purpose: rec.Purpose, SubjectID: rec.MemberID, ExpiresAt: rec.ExpiresAt, UsedAt: rec.UsedAt}, nil
}

// SpendMailToken implements store.PortalTx: the one writer makes the
// spending single.
func (t *txn) SpendMailToken(plain, purpose string) (string, error) {
	k := []byte(store.HashSecret(plain))
	var rec mailToken
	ok, err := t.getAt(bMailTokens, k, &rec)
	if err != nil {
		return "", err
	}
	if plain == "" || !ok || rec.Purpose != purpose || !t.now.Before(rec.ExpiresAt) || !rec.UsedAt.IsZero() {
		return "", store.ErrMailLinkInvalid()
	}
	rec.UsedAt = t.now
	return rec.MemberID, t.putAt(bMailTokens, k, &rec)
}

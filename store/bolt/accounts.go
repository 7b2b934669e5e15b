package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.Accounts = (*DB)(nil)

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

// Signup implements store.Accounts.
func (db *DB) Signup(ctx context.Context, in store.SignupInput) (*store.SignupResult, error) {
	m, p, err := db.SignupOwner(ctx, in)
	if err != nil {
		return nil, err
	}
	orgName := p.OrganizationName
	token := store.NewSecret("")
	var out *store.SignupResult
	err = db.update(ctx, func(t *txn) error {
		if id := t.lookup(bMembersEmail, []byte(m.Email)); id != "" {
			existing := new(store.Member)
			if err := t.mustGet(bMembers, id, "member", existing); err != nil {
				return err
			}
			out = &store.SignupResult{Existing: true, Member: existing}
			return nil
		}
		o, err := store.NewOrganization(t, store.NewID(), orgName, false)
		if err != nil {
			return err
		}
		m.OrgID = o.ID
		if err := t.insertMember(m); err != nil {
			return err
		}
		if err := t.PutMailToken(token, store.TokenVerifyEmail, m.ID, in.VerifyTTL); err != nil {
			return err
		}
		out = &store.SignupResult{Member: m, Organization: o, VerifyToken: token}
		return t.as(m).audit(auditEvent{Event: store.EventOrganizationCreated, OrgID: o.ID, Target: store.Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name, "owner_id": m.ID, "signup": true}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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

// as returns the transaction acting as member m: public account calls have
// no credential, so the audit entry names the account they concern, keeping
// the caller's address and user agent.
func (t *txn) as(m *store.Member) *txn {
	a := store.ActorFrom(t.ctx)
	a.Type, a.ID = store.ActorMember, m.ID
	cp := *t
	cp.ctx = store.WithActor(t.ctx, a)
	return &cp
}

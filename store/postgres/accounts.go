package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.Accounts = (*DB)(nil)

// mailTokenDoc is the doc of a mail_tokens row: what its columns (hash,
// member, purpose, expiry, spending) leave out.
type mailTokenDoc struct {
	CreatedAt time.Time `json:"created_at"`
}

// auditAs writes ev naming member m as its actor: public account calls have
// no credential, so the entry names the account they concern, keeping the
// caller's address and user agent.
func (t *txn) auditAs(m *store.Member, ev auditEvent) error {
	a := store.ActorFrom(t.ctx)
	a.Type, a.ID = store.ActorMember, m.ID
	ctx := t.ctx
	t.ctx = store.WithActor(ctx, a)
	err := t.audit(ev)
	t.ctx = ctx
	return err
}

// Signup implements store.Accounts.
func (db *DB) Signup(ctx context.Context, in store.SignupInput) (*store.SignupResult, error) {
	m, p, err := db.SignupOwner(ctx, in)
	if err != nil {
		return nil, err
	}
	token := store.NewSecret("")
	var out *store.SignupResult
	err = db.update(ctx, func(t *txn) error {
		// The member goes in first, under the id its organization will
		// have: when the address is taken (also by a signup committing on
		// another server meanwhile) nothing is written and the existing
		// account answers.
		m.OrgID = store.NewID()
		ok, err := t.insertMemberIfNew(m)
		if err != nil {
			return err
		}
		if !ok {
			existing, err := t.memberByEmail(m.Email)
			if err != nil {
				return err
			}
			if existing == nil {
				// Taken, then removed since by another transaction.
				return errEmailTaken()
			}
			out = &store.SignupResult{Existing: true, Member: existing}
			return nil
		}
		o, err := store.NewOrganization(t, m.OrgID, p.OrganizationName, false)
		if err != nil {
			return err
		}
		if err := t.PutMailToken(token, store.TokenVerifyEmail, m.ID, in.VerifyTTL); err != nil {
			return err
		}
		out = &store.SignupResult{Member: m, Organization: o, VerifyToken: token}
		return t.auditAs(m, auditEvent{Event: store.EventOrganizationCreated, OrgID: o.ID, Target: store.Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name, "owner_id": m.ID, "signup": true}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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

package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.Partners = (*DB)(nil)

// partnerIdentityDoc is the doc of a partner_identities row (bolt's record,
// field for field).
type partnerIdentityDoc struct {
	MemberID string    `json:"m"`
	LinkedAt time.Time `json:"at"`
	// AccountVerified says the account's address was verified before the
	// link was made. A password reset drops the links without it.
	AccountVerified bool `json:"v,omitempty"`
}

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

// PartnerSignIn implements store.Partners.
func (db *DB) PartnerSignIn(ctx context.Context, id store.PartnerIdentity, sessionTTL time.Duration) (*store.PartnerSignInResult, error) {
	email, err := id.Check()
	if err != nil {
		return nil, err
	}
	var out *store.PartnerSignInResult
	err = db.update(ctx, func(t *txn) error {
		out = &store.PartnerSignInResult{}
		// The first sign-ins of one identity on two servers take turns:
		// the second finds the link the first made instead of making its
		// own.
		if _, err := t.exec(`SELECT pg_advisory_xact_lock(hashtext('licensectl partner ' || $1 || chr(1) || $2))`, id.Issuer, id.Subject); err != nil {
			return err
		}
		m, err := t.identityMember(id.Issuer, id.Subject)
		if err != nil {
			return err
		}
		if m == nil {
			if m, err = t.linkIdentity(id, email, out); err != nil {
				return err
			}
		}
		sess, err := db.OpenDashboardSession(t, m.ID, sessionTTL)
		if err != nil {
			return err
		}
		out.Member, out.Session = m, sess
		return t.auditAs(m, auditEvent{Event: store.EventMemberLogin, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"method": "partner"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// identityMember returns the account an identity is linked to, or nil. A
// link whose account was removed is dropped, so the identity can sign up
// afresh.
func (t *txn) identityMember(issuer, subject string) (*store.Member, error) {
	var memberID string
	var m []byte
	err := t.tx.QueryRow(t.ctx, `SELECT i.member_id::text, m.doc FROM partner_identities i LEFT JOIN members m ON m.id = i.member_id
		WHERE i.issuer = $1 AND i.subject = $2`, issuer, subject).Scan(&memberID, &m)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m == nil {
		_, err := t.exec(`DELETE FROM partner_identities WHERE issuer = $1 AND subject = $2`, issuer, subject)
		return nil, err
	}
	return decode[store.Member](m)
}

// linkIdentity attaches a new identity to the account of its address, or to
// a new account without organization, and records it in out. Only the
// provider's word that the address is verified lets an identity in: anyone
// can open an account at a provider with someone else's address, and an
// account made or joined that way would be waiting for its owner.
func (t *txn) linkIdentity(id store.PartnerIdentity, email string, out *store.PartnerSignInResult) (*store.Member, error) {
	if err := id.CheckLinkable(); err != nil {
		return nil, err
	}
	// No password: the account signs in through the provider, or sets one
	// with forgot-password (Login treats it as having none).
	fresh := &store.Member{ID: store.NewID(), Email: email, EmailVerified: true}
	created, err := t.insertMemberIfNew(fresh)
	if err != nil {
		return nil, err
	}
	m := fresh
	if !created {
		// The address has an account (perhaps committed on another server
		// a moment ago): lock it, the link may verify it.
		if m, err = doc[store.Member](t, `SELECT doc FROM members WHERE email = $1 FOR UPDATE`, email); err != nil {
			return nil, err
		}
		if m == nil {
			return nil, store.NotFound("member")
		}
	}
	out.Created = created
	// Read before the link marks the account verified (the provider vouches
	// for the address): the reset mail, not this link, settles who holds it.
	rec := &partnerIdentityDoc{MemberID: m.ID, LinkedAt: t.now, AccountVerified: m.EmailVerified}
	dropped := id.LinkTo(m)
	if dropped {
		if _, err := t.endDashSessions(m.ID); err != nil {
			return nil, err
		}
	}
	if err := t.db.MarkVerified(t, m); err != nil {
		return nil, err
	}
	if _, err := t.exec(`INSERT INTO partner_identities (issuer, subject, member_id, doc) VALUES ($1, $2, $3, $4)`,
		id.Issuer, id.Subject, m.ID, js(rec)); err != nil {
		return nil, err
	}
	out.Linked = true
	return m, t.auditAs(m, auditEvent{Event: store.EventMemberPartnerLinked, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID},
		Metadata: map[string]any{"issuer": id.Issuer, "new_account": out.Created, "email_verified": id.EmailVerified, "account_verified": rec.AccountVerified, "password_dropped": dropped}})
}

// CompleteProfile implements store.Partners.
func (db *DB) CompleteProfile(ctx context.Context, memberID string, in store.ProfileInput) (*store.Organization, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var o *store.Organization
	err = db.update(ctx, func(t *txn) error {
		m, err := t.lockMember(memberID)
		if err != nil {
			return err
		}
		if m == nil {
			return store.NotFound("account")
		}
		if err := m.CheckProfileOpen(); err != nil {
			return err
		}
		if o, err = store.NewOrganization(t, store.NewID(), in.OrganizationName, m.EmailVerified); err != nil {
			return err
		}
		m.CompleteProfile(o.ID, in, t.now)
		if err := t.saveMember(m); err != nil {
			return err
		}
		return t.auditAs(m, auditEvent{Event: store.EventOrganizationCreated, OrgID: o.ID, Target: store.Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name, "owner_id": m.ID, "partner": true}})
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

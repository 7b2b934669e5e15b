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

// accountsUnknownVerifier is implemented by hashers that can spend a
// verification's work without an account (store/password.Hasher does), so
// that a login for an unknown address costs what a wrong password costs.
type accountsUnknownVerifier interface {
	VerifyUnknown(ctx context.Context, plain string) error
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
	p, err := store.ProfileInput{FirstName: in.FirstName, LastName: in.LastName, OrganizationName: in.OrganizationName,
		Phone: in.Phone, TOSVersion: in.TOSVersion}.Check()
	if err != nil {
		return nil, err
	}
	// newMember validates the address and password and hashes the password
	// before anything reveals whether the address is registered: both paths
	// do the same work.
	m, err := db.NewMember(ctx, store.AddMemberInput{Email: in.Email, Password: in.Password, Role: store.RoleOwner, FirstName: p.FirstName, LastName: p.LastName})
	if err != nil {
		return nil, err
	}
	m.Phone, m.TOSVersion = p.Phone, p.TOSVersion
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
		if err := t.putMailToken(token, store.TokenVerifyEmail, m.ID, in.VerifyTTL); err != nil {
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

// IssueMailToken implements store.Accounts.
func (db *DB) IssueMailToken(ctx context.Context, email, purpose string, ttl time.Duration) (*store.Member, string, error) {
	email, err := store.NormalizeEmail("email", email)
	if err != nil {
		return nil, "", err
	}
	token := store.NewSecret("")
	var m *store.Member
	err = db.update(ctx, func(t *txn) error {
		var err error
		if m, err = t.memberByEmail(email); err != nil {
			return err
		}
		if m == nil {
			return store.NotFound("account")
		}
		if purpose == store.TokenVerifyEmail && m.EmailVerified {
			return store.NotFound("unverified account")
		}
		return t.putMailToken(token, purpose, m.ID, ttl)
	})
	if err != nil {
		return nil, "", err
	}
	return m, token, nil
}

// putMailToken stores a new token's hash. Expired tokens are deleted first,
// in the same transaction: the table then holds only the tokens of the last
// day, which per-address rate limits keep small, and no background sweeper
// is needed.
func (t *txn) putMailToken(plain, purpose, memberID string, ttl time.Duration) error {
	if _, err := t.exec(`DELETE FROM mail_tokens WHERE expires_at <= $1`, t.now); err != nil {
		return err
	}
	h := store.SumSecret(plain)
	_, err := t.exec(`INSERT INTO mail_tokens (hash, member_id, purpose, expires_at, doc) VALUES ($1, $2, $3, $4, $5)`,
		h[:], memberID, purpose, t.now.Add(ttl), js(mailTokenDoc{CreatedAt: t.now}))
	return err
}

// mailTokenMember resolves a token of purpose to its account without
// spending it. Unknown, expired, spent, misdirected tokens and tokens of
// removed accounts are all invalid_token, alike.
func (t *txn) mailTokenMember(plain, purpose string) (*store.Member, error) {
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

// spendMailToken resolves a token and marks it used, and locks its
// account's row for the change the token buys. The conditional UPDATE is
// the spending: of two servers presenting one token, the second waits for
// the first's commit, then finds it used and refuses it.
func (t *txn) spendMailToken(plain, purpose string) (*store.Member, error) {
	memberID, err := t.SpendMailToken(plain, purpose)
	if err != nil {
		return nil, err
	}
	m, err := t.lockMember(memberID)
	if err == nil && m == nil {
		// A removed account's token: the refusal rolls the spending back.
		err = store.ErrMailLinkInvalid()
	}
	return m, err
}

// markVerified records that m (locked by the caller) controls its address;
// for the owner of an unverified organization, the organization is
// verified with it.
func (t *txn) markVerified(m *store.Member) error {
	if !m.EmailVerified {
		m.EmailVerified, m.UpdatedAt = true, t.now
		if err := t.saveMember(m); err != nil {
			return err
		}
	}
	if m.OrgID == "" || m.Role != store.RoleOwner {
		return nil
	}
	o, err := doc[store.Organization](t, `SELECT doc FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(m.OrgID))
	if err != nil || o == nil || o.EmailVerified {
		return err
	}
	o.EmailVerified, o.UpdatedAt = true, t.now
	return t.PutOrg(o)
}

// VerifyEmail implements store.Accounts.
func (db *DB) VerifyEmail(ctx context.Context, token string, sessionTTL time.Duration) (*store.LoginResult, error) {
	var out *store.LoginResult
	err := db.update(ctx, func(t *txn) error {
		m, err := t.spendMailToken(token, store.TokenVerifyEmail)
		if err != nil {
			return err
		}
		if err := t.markVerified(m); err != nil {
			return err
		}
		sess, err := t.openDashSession(m.ID, sessionTTL)
		if err != nil {
			return err
		}
		out = &store.LoginResult{Member: m, Session: sess}
		return t.auditAs(m, auditEvent{Event: store.EventMemberEmailVerified, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResetPassword implements store.Accounts. The token is checked first, then
// the policy against the account's address, then the password is hashed
// outside any transaction, and the token is spent in the same transaction
// that sets the password.
func (db *DB) ResetPassword(ctx context.Context, token, newPassword string) (*store.Member, error) {
	var m *store.Member
	err := db.view(ctx, func(t *txn) (err error) {
		m, err = t.mailTokenMember(token, store.TokenResetPassword)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := store.CheckPassword("new_password", newPassword, m.Email, db.Passwords); err != nil {
		return nil, err
	}
	if db.Hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	hash, err := db.Hasher.Hash(ctx, newPassword)
	if err != nil {
		return nil, err
	}
	err = db.update(ctx, func(t *txn) error {
		cur, err := t.spendMailToken(token, store.TokenResetPassword)
		if err != nil {
			return err
		}
		cur.PasswordHash, cur.UpdatedAt = hash, t.now
		if err := t.saveMember(cur); err != nil {
			return err
		}
		// Receiving the reset mail proves control of the address.
		if err := t.markVerified(cur); err != nil {
			return err
		}
		n, err := t.endDashSessions(cur.ID)
		if err != nil {
			return err
		}
		meta := map[string]any{"sessions_revoked": n}
		// The reset mail reached the holder of the address; a partner
		// identity linked before anyone had shown that may be whoever
		// prepared the account for them.
		dropped, err := t.dropUnverifiedLinks(cur.ID)
		if err != nil {
			return err
		}
		if dropped > 0 {
			meta["partner_links_dropped"] = dropped
		}
		m = cur
		return t.auditAs(cur, auditEvent{Event: store.EventMemberPasswordReset, OrgID: cur.OrgID, Target: store.Target{Type: "member", ID: cur.ID},
			Metadata: meta})
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Login implements store.Accounts.
func (db *DB) Login(ctx context.Context, email, password string, sessionTTL time.Duration) (*store.LoginResult, error) {
	invalid := store.ErrWrongPassword()
	if db.Hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	email, err := store.LoginEmail("email", email)
	if err != nil {
		return nil, err
	}
	var m *store.Member
	err = db.view(ctx, func(t *txn) (err error) {
		m, err = t.memberByEmail(email)
		return err
	})
	if err != nil {
		return nil, err
	}
	// An account made by partner sign-in has no password until it sets one:
	// it fails like an unknown address, with the same work.
	if m == nil || m.PasswordHash == "" {
		if uv, ok := db.Hasher.(accountsUnknownVerifier); ok {
			if err := uv.VerifyUnknown(ctx, password); err != nil {
				return nil, err
			}
		}
		return nil, invalid
	}
	ok, err := db.Hasher.Verify(ctx, password, m.PasswordHash)
	if err != nil {
		return nil, err
	}
	if !ok {
		err := db.update(ctx, func(t *txn) error {
			return t.auditAs(m, auditEvent{Event: store.EventMemberLoginFailed, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID}})
		})
		if err != nil {
			return nil, err
		}
		return nil, invalid
	}
	var out *store.LoginResult
	err = db.update(ctx, func(t *txn) error {
		// Re-read: the member may have been removed or changed meanwhile,
		// on this server or another; the share lock keeps a reset from
		// committing between this check and the session.
		cur, err := doc[store.Member](t, `SELECT doc FROM members WHERE id = $1 FOR SHARE`, m.ID)
		if err != nil {
			return err
		}
		if cur == nil || cur.PasswordHash != m.PasswordHash {
			return invalid
		}
		sess, err := t.openDashSession(cur.ID, sessionTTL)
		if err != nil {
			return err
		}
		out = &store.LoginResult{Member: cur, Session: sess}
		return t.auditAs(cur, auditEvent{Event: store.EventMemberLogin, OrgID: cur.OrgID, Target: store.Target{Type: "member", ID: cur.ID},
			Metadata: map[string]any{"method": "password"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

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

// unknownVerifier is implemented by hashers that can spend a verification's
// work without an account (store/password.Hasher does), so that a login for
// an unknown address costs what a wrong password costs.
type unknownVerifier interface {
	VerifyUnknown(ctx context.Context, plain string) error
}

// Signup implements store.Accounts.
func (db *DB) Signup(ctx context.Context, in store.SignupInput) (*store.SignupResult, error) {
	p, err := store.ProfileInput{FirstName: in.FirstName, LastName: in.LastName, OrganizationName: in.OrganizationName,
		Phone: in.Phone, TOSVersion: in.TOSVersion}.Check()
	if err != nil {
		return nil, err
	}
	orgName := p.OrganizationName
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
		if err := t.putMailToken(token, store.TokenVerifyEmail, m.ID, in.VerifyTTL); err != nil {
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

// IssueMailToken implements store.Accounts.
func (db *DB) IssueMailToken(ctx context.Context, email, purpose string, ttl time.Duration) (*store.Member, string, error) {
	email, err := store.NormalizeEmail("email", email)
	if err != nil {
		return nil, "", err
	}
	token := store.NewSecret("")
	m := new(store.Member)
	err = db.update(ctx, func(t *txn) error {
		id := t.lookup(bMembersEmail, []byte(email))
		if id == "" {
			return store.NotFound("account")
		}
		if err := t.mustGet(bMembers, id, "account", m); err != nil {
			return err
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

// putMailToken stores a new token's hash. Expired tokens are swept first,
// in the same transaction: the bucket then holds only the tokens of the last
// day, which per-address rate limits keep small, so the walk stays cheap and
// no background sweeper is needed.
func (t *txn) putMailToken(plain, purpose, memberID string, ttl time.Duration) error {
	err := t.sweep(bMailTokens, func(k, v []byte) (bool, error) {
		var old mailToken
		err := decode(bMailTokens, k, v, &old)
		return err == nil && !t.now.Before(old.ExpiresAt), err
	})
	if err != nil {
		return err
	}
	rec := mailToken{Purpose: purpose, MemberID: memberID, CreatedAt: t.now, ExpiresAt: t.now.Add(ttl)}
	return t.putAt(bMailTokens, []byte(store.HashSecret(plain)), &rec)
}

// mailTokenMember resolves a token of purpose to its account without
// spending it. Unknown, expired, misdirected tokens and tokens of removed
// accounts are all invalid_token, alike.
func (t *txn) mailTokenMember(plain, purpose string) (*store.Member, error) {
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

// spendMailToken resolves a token and marks it used: tokens are single use.
func (t *txn) spendMailToken(plain, purpose string) (*store.Member, error) {
	m, err := t.mailTokenMember(plain, purpose)
	if err != nil {
		return nil, err
	}
	_, err = t.SpendMailToken(plain, purpose)
	return m, err
}

// markVerified records that m controls its address; for the owner of an
// unverified organization, the organization is verified with it.
func (t *txn) markVerified(m *store.Member) error {
	if !m.EmailVerified {
		m.EmailVerified, m.UpdatedAt = true, t.now
		if err := t.put(bMembers, m.ID, m); err != nil {
			return err
		}
	}
	if m.OrgID == "" || m.Role != store.RoleOwner {
		return nil
	}
	o := new(store.Organization)
	ok, err := t.get(bOrgs, m.OrgID, o)
	if err != nil || !ok || o.EmailVerified {
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
		return t.as(m).audit(auditEvent{Event: store.EventMemberEmailVerified, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID}})
	})
	return out, err
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
		if err := t.put(bMembers, cur.ID, cur); err != nil {
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
		return t.as(cur).audit(auditEvent{Event: store.EventMemberPasswordReset, OrgID: cur.OrgID, Target: store.Target{Type: "member", ID: cur.ID},
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
	m := new(store.Member)
	found := false
	err = db.view(ctx, func(t *txn) error {
		id := t.lookup(bMembersEmail, []byte(email))
		if id == "" {
			return nil
		}
		var err error
		found, err = t.get(bMembers, id, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	// An account made by partner sign-in has no password until it sets one:
	// it fails like an unknown address, with the same work.
	if !found || m.PasswordHash == "" {
		if uv, ok := db.Hasher.(unknownVerifier); ok {
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
			return t.as(m).audit(auditEvent{Event: store.EventMemberLoginFailed, OrgID: m.OrgID, Target: store.Target{Type: "member", ID: m.ID}})
		})
		if err != nil {
			return nil, err
		}
		return nil, invalid
	}
	var out *store.LoginResult
	err = db.update(ctx, func(t *txn) error {
		// Re-read: the member may have been removed or changed meanwhile.
		cur := new(store.Member)
		ok, err := t.get(bMembers, m.ID, cur)
		if err != nil {
			return err
		}
		if !ok || cur.PasswordHash != m.PasswordHash {
			return invalid
		}
		sess, err := t.openDashSession(cur.ID, sessionTTL)
		if err != nil {
			return err
		}
		out = &store.LoginResult{Member: cur, Session: sess}
		return t.as(cur).audit(auditEvent{Event: store.EventMemberLogin, OrgID: cur.OrgID, Target: store.Target{Type: "member", ID: cur.ID},
			Metadata: map[string]any{"method": "password"}})
	})
	return out, err
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

package store

import (
	"context"
	"time"
)

// The dashboard accounts: mail tokens, verification, password reset,
// password login and logout. A change to a member holds it first
// (spendMemberToken, Tx.LockMember), so that a reset and a verification
// on two servers never overwrite each other.

// spendMemberToken spends a live mail token of purpose and returns its
// account, held for the change the token buys. The spending is
// conditional (Tx.SpendMailToken), so of two servers presenting one token
// the second finds it used; a removed account's token is invalid_token
// too, and the refusal rolls the spending back.
func spendMemberToken(t Tx, token, purpose string) (*Member, error) {
	id, err := t.SpendMailToken(token, purpose)
	if err != nil {
		return nil, err
	}
	m, err := t.LockMember(id)
	if err == nil && m == nil {
		err = ErrMailLinkInvalid()
	}
	return m, err
}

// unknownVerifier is implemented by hashers that can spend a
// verification's work without an account (store/password.Hasher does), so
// that a login for an unknown address costs what a wrong password costs.
type unknownVerifier interface {
	VerifyUnknown(ctx context.Context, plain string) error
}

// SignupOwner checks a signup's profile and builds the owner it would
// create, its password checked and hashed before anything reveals whether
// the address is registered, so that both outcomes cost the same work. It
// returns the checked profile with it.
func (sv *Service) SignupOwner(ctx context.Context, in SignupInput) (*Member, ProfileInput, error) {
	p, err := ProfileInput{FirstName: in.FirstName, LastName: in.LastName, OrganizationName: in.OrganizationName,
		Phone: in.Phone, TOSVersion: in.TOSVersion}.Check()
	if err != nil {
		return nil, p, err
	}
	m, err := sv.NewMember(ctx, AddMemberInput{Email: in.Email, Password: in.Password, Role: RoleOwner, FirstName: p.FirstName, LastName: p.LastName})
	if err != nil {
		return nil, p, err
	}
	m.Phone, m.TOSVersion = p.Phone, p.TOSVersion
	return m, p, nil
}

// IssueMailToken implements Accounts.
func (sv *Service) IssueMailToken(ctx context.Context, email, purpose string, ttl time.Duration) (*Member, string, error) {
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, "", err
	}
	token := NewSecret("")
	var m *Member
	err = sv.update(ctx, func(t Tx) error {
		var err error
		if m, err = t.MemberByEmail(email); err != nil {
			return err
		}
		if m == nil {
			return NotFound("account")
		}
		if purpose == TokenVerifyEmail && m.EmailVerified {
			return NotFound("unverified account")
		}
		return t.PutMailToken(token, purpose, m.ID, ttl)
	})
	if err != nil {
		return nil, "", err
	}
	return m, token, nil
}

// MarkVerified records, in t, that m (held by the caller) controls its
// address; for the owner of an unverified organization, the organization
// is verified with it. The storages' own remaining account changes
// (partner sign-in) apply it too.
func (sv *Service) MarkVerified(t Tx, m *Member) error {
	now := t.Now()
	if !m.EmailVerified {
		m.EmailVerified, m.UpdatedAt = true, now
		if err := t.PutMember(m); err != nil {
			return err
		}
	}
	if m.OrgID == "" || m.Role != RoleOwner {
		return nil
	}
	o, err := t.LockOrg(m.OrgID)
	if ErrorCode(err) == ECodeNotFound {
		return nil
	}
	if err != nil || o.EmailVerified {
		return err
	}
	o.EmailVerified, o.UpdatedAt = true, now
	return t.PutOrg(o)
}

// OpenDashboardSession starts, in t, a dashboard session of ttl for a
// member.
func (sv *Service) OpenDashboardSession(t Tx, memberID string, ttl time.Duration) (*DashboardSession, error) {
	now := t.Now()
	s := &DashboardSession{ID: NewID(), MemberID: memberID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := t.InsertDashboardSession(s); err != nil {
		return nil, err
	}
	return s, nil
}

// VerifyEmail implements Accounts.
func (sv *Service) VerifyEmail(ctx context.Context, token string, sessionTTL time.Duration) (*LoginResult, error) {
	var out *LoginResult
	err := sv.update(ctx, func(t Tx) error {
		m, err := spendMemberToken(t, token, TokenVerifyEmail)
		if err != nil {
			return err
		}
		if err := sv.MarkVerified(t, m); err != nil {
			return err
		}
		sess, err := sv.OpenDashboardSession(t, m.ID, sessionTTL)
		if err != nil {
			return err
		}
		out = &LoginResult{Member: m, Session: sess}
		t.ActAs(ActorMember, m.ID)
		return t.Audit(AuditEvent{Event: EventMemberEmailVerified, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResetPassword implements Accounts. The token is checked first, then the
// policy against the account's address, then the password is hashed
// outside any transaction, and the token is spent in the same transaction
// that sets the password.
func (sv *Service) ResetPassword(ctx context.Context, token, newPassword string) (*Member, error) {
	var m *Member
	err := sv.storage.View(ctx, func(t Tx) (err error) {
		m, err = t.MailTokenMember(token, TokenResetPassword)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := CheckPassword("new_password", newPassword, m.Email, sv.Passwords); err != nil {
		return nil, err
	}
	if sv.Hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	hash, err := sv.Hasher.Hash(ctx, newPassword)
	if err != nil {
		return nil, err
	}
	err = sv.update(ctx, func(t Tx) error {
		cur, err := spendMemberToken(t, token, TokenResetPassword)
		if err != nil {
			return err
		}
		cur.PasswordHash, cur.UpdatedAt = hash, t.Now()
		if err := t.PutMember(cur); err != nil {
			return err
		}
		// Receiving the reset mail proves control of the address.
		if err := sv.MarkVerified(t, cur); err != nil {
			return err
		}
		n, err := t.EndDashboardSessions(cur.ID)
		if err != nil {
			return err
		}
		meta := map[string]any{"sessions_revoked": n}
		// The reset mail reached the holder of the address; a partner
		// identity linked before anyone had shown that may be whoever
		// prepared the account for them.
		dropped, err := t.DropUnverifiedLinks(cur.ID)
		if err != nil {
			return err
		}
		if dropped > 0 {
			meta["partner_links_dropped"] = dropped
		}
		m = cur
		t.ActAs(ActorMember, cur.ID)
		return t.Audit(AuditEvent{Event: EventMemberPasswordReset, OrgID: cur.OrgID, Target: Target{Type: "member", ID: cur.ID},
			Metadata: meta})
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Login implements Accounts.
func (sv *Service) Login(ctx context.Context, email, password string, sessionTTL time.Duration) (*LoginResult, error) {
	invalid := ErrWrongPassword()
	if sv.Hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	email, err := LoginEmail("email", email)
	if err != nil {
		return nil, err
	}
	var m *Member
	err = sv.storage.View(ctx, func(t Tx) (err error) {
		m, err = t.MemberByEmail(email)
		return err
	})
	if err != nil {
		return nil, err
	}
	// An account made by partner sign-in has no password until it sets one:
	// it fails like an unknown address, with the same work.
	if m == nil || m.PasswordHash == "" {
		if uv, ok := sv.Hasher.(unknownVerifier); ok {
			if err := uv.VerifyUnknown(ctx, password); err != nil {
				return nil, err
			}
		}
		return nil, invalid
	}
	ok, err := sv.Hasher.Verify(ctx, password, m.PasswordHash)
	if err != nil {
		return nil, err
	}
	if !ok {
		err := sv.update(ctx, func(t Tx) error {
			t.ActAs(ActorMember, m.ID)
			return t.Audit(AuditEvent{Event: EventMemberLoginFailed, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID}})
		})
		if err != nil {
			return nil, err
		}
		return nil, invalid
	}
	var out *LoginResult
	err = sv.update(ctx, func(t Tx) error {
		// Re-read, held: the member may have been removed or changed
		// meanwhile, on this server or another, and a reset cannot commit
		// between this check and the session.
		cur, err := t.LockMember(m.ID)
		if err != nil {
			return err
		}
		if cur == nil || cur.PasswordHash != m.PasswordHash {
			return invalid
		}
		sess, err := sv.OpenDashboardSession(t, cur.ID, sessionTTL)
		if err != nil {
			return err
		}
		out = &LoginResult{Member: cur, Session: sess}
		t.ActAs(ActorMember, cur.ID)
		return t.Audit(AuditEvent{Event: EventMemberLogin, OrgID: cur.OrgID, Target: Target{Type: "member", ID: cur.ID},
			Metadata: map[string]any{"method": "password"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RevokeDashboardSession implements Accounts. Revoking a session that is
// gone is not an error.
func (sv *Service) RevokeDashboardSession(ctx context.Context, id string) error {
	return sv.update(ctx, func(t Tx) error {
		memberID, err := t.DeleteDashboardSession(id)
		if err != nil || memberID == "" {
			return err
		}
		m, err := t.LockMember(memberID)
		if err != nil || m == nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventMemberLogout, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID}})
	})
}

// CreatePartnerAttempt implements Partners: the state a partner sign-in
// round-trips, kept until ttl passes.
func (sv *Service) CreatePartnerAttempt(ctx context.Context, state string, ttl time.Duration) error {
	if err := CheckStorable("state", state); err != nil {
		return err
	}
	return sv.update(ctx, func(t Tx) error { return t.InsertPartnerAttempt(state, ttl) })
}

// SpendPartnerAttempt implements Partners: a state is good once, and only
// while it lives.
func (sv *Service) SpendPartnerAttempt(ctx context.Context, state string) error {
	if err := CheckStorable("state", state); err != nil {
		return err
	}
	if state == "" {
		return ErrPartnerAttempt()
	}
	return sv.update(ctx, func(t Tx) error {
		ok, err := t.SpendPartnerAttempt(state)
		if err == nil && !ok {
			err = ErrPartnerAttempt()
		}
		return err
	})
}

package store

import (
	"context"
	"time"
)

// The portal's tokens (docs/design.md §17) are mail tokens whose subject is
// an end-user: the one-time sign-in link and the browser's session, spent
// by signing in and by signing out.
const (
	TokenPortalSignIn  = "portal_sign_in"
	TokenPortalSession = "portal_session"
)

// Lifetimes of the portal's tokens; a session is not renewed by use.
const (
	PortalLinkTTL    = 15 * time.Minute
	PortalSessionTTL = 30 * time.Minute
)

// MailToken is a stored mail token as a transaction reads it.
type MailToken struct {
	Purpose   string
	SubjectID string // the member or end-user it was issued to
	ExpiresAt time.Time
	UsedAt    time.Time // zero while unspent
}

// State is the token's TokenState at now.
func (k *MailToken) State(now time.Time) string {
	switch {
	case k == nil:
		return TokenStateUnknown
	case !k.UsedAt.IsZero():
		return TokenStateUsed
	case !now.Before(k.ExpiresAt):
		return TokenStateExpired
	}
	return TokenStateValid
}

// PortalTx is what the portal's changes read and write beyond the rest of
// Tx.
type PortalTx interface {
	// EndUser loads an end-user of environment envID without holding it.
	EndUser(envID, id string) (*EndUser, error)
	// EndUserByEmail loads the end-user of environment envID with this
	// normalized address. Returns not_found.
	EndUserByEmail(envID, email string) (*EndUser, error)
	// MailToken loads the token whose plaintext is plain, of any state;
	// nil when none is stored.
	MailToken(plain string) (*MailToken, error)
	// PutMailToken stores the hash of a new token of purpose issued to
	// subjectID (a member or an end-user), expiring ttl from now. The
	// storage drops expired tokens on the way.
	PutMailToken(plain, purpose, subjectID string, ttl time.Duration) error
	// SpendMailToken marks the live token of purpose used and returns its
	// subject; invalid_token when it is unknown, of another purpose,
	// expired or spent. Of two transactions spending one token, one wins.
	SpendMailToken(plain, purpose string) (string, error)
}

// PortalScope names the application and environment a portal page serves:
// the application by id, the environment by name (production when "").
type PortalScope struct {
	AppID string
	Env   string
}

// PortalSession is a signed-in portal session: Token goes in the cookie.
type PortalSession struct {
	Token     string
	User      *EndUser
	ExpiresAt time.Time
}

// Portal is the portal's sign-in and sessions; Service implements it.
type Portal interface {
	PortalPasswordSignIn(ctx context.Context, ps PortalScope, email, password string) (*PortalSession, error)
	PortalIssueLink(ctx context.Context, ps PortalScope, email string) (*EndUser, string, error)
	PortalLinkSignIn(ctx context.Context, ps PortalScope, token string) (*PortalSession, error)
	PortalSessionUser(ctx context.Context, ps PortalScope, token string) (*EndUser, error)
	PortalSignOut(ctx context.Context, token string) error
	PortalLinkState(ctx context.Context, token string) (string, error)
}

// portalState is what Service keeps for the portal across calls: the
// password sign-in's hash for unknown addresses, as a runtime login keeps
// its own.
type portalState struct {
	dummy dummyPassword
}

// portalApp resolves the scope to an active application and its
// environment; an unknown or disabled one is not_found.
func portalApp(t Tx, ps PortalScope) (*Application, *Environment, error) {
	if ps.Env == "" {
		ps.Env = EnvProduction
	}
	if CheckID("app_id", ps.AppID) != nil || !ValidEnv(ps.Env) {
		return nil, nil, NotFound("application")
	}
	a, err := t.Application(ps.AppID)
	if err != nil {
		return nil, nil, err
	}
	env := a.Env(ps.Env)
	if a.Status != AppActive || env == nil {
		return nil, nil, NotFound("application")
	}
	return a, env, nil
}

// PortalPasswordSignIn checks an end-user's address and password and opens
// a portal session (no runtime session, no device). The hash is verified
// between a read and the write (argon2id must not hold the writer), which
// refuses a password changed meanwhile. Returns not_found (application),
// validation_failed, invalid_credentials (audited user.login_failed),
// forbidden (banned or disabled, told only to the password's holder).
func (sv *Service) PortalPasswordSignIn(ctx context.Context, ps PortalScope, email, password string) (*PortalSession, error) {
	addr, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, err
	}
	if sv.Hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	var hash string
	err = sv.view(ctx, func(t Tx) error {
		_, env, err := portalApp(t, ps)
		if err != nil {
			return err
		}
		u, err := t.EndUserByEmail(env.ID, addr)
		if ErrorCode(err) == ECodeNotFound {
			return nil
		}
		if err == nil {
			hash = u.PasswordHash
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	match, err := sv.portal.dummy.verify(ctx, sv.Hasher, password, hash)
	if err != nil {
		return nil, err
	}
	return sv.openPortalSession(ctx, ps, "password", func(t Tx, a *Application, env *Environment) (*EndUser, error) {
		u, err := t.EndUserByEmail(env.ID, addr)
		if err != nil && ErrorCode(err) != ECodeNotFound {
			return nil, err
		}
		if u == nil || !match || u.PasswordHash != hash {
			target := Target{Type: "user"}
			if u != nil {
				target.ID = u.ID
			}
			return nil, t.Audit(AuditEvent{Event: EventUserLoginFailed, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: target,
				Metadata: map[string]any{"email": addr, "by": "portal"}})
		}
		return u, nil
	})
}

// PortalIssueLink stores a sign-in link token for the end-user of email and
// returns it. Returns not_found (no such end-user), validation_failed.
func (sv *Service) PortalIssueLink(ctx context.Context, ps PortalScope, email string) (*EndUser, string, error) {
	addr, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, "", err
	}
	token := NewSecret("")
	var u *EndUser
	err = sv.update(ctx, func(t Tx) error {
		_, env, err := portalApp(t, ps)
		if err != nil {
			return err
		}
		if u, err = t.EndUserByEmail(env.ID, addr); err != nil {
			return err
		}
		return t.PutMailToken(token, TokenPortalSignIn, u.ID, PortalLinkTTL)
	})
	if err != nil {
		return nil, "", err
	}
	return u, token, nil
}

// PortalLinkSignIn spends a sign-in link of the scope's environment and
// opens a portal session. Returns invalid_token (unknown, expired, spent,
// another environment's), not_found, forbidden.
func (sv *Service) PortalLinkSignIn(ctx context.Context, ps PortalScope, token string) (*PortalSession, error) {
	return sv.openPortalSession(ctx, ps, "link", func(t Tx, _ *Application, env *Environment) (*EndUser, error) {
		id, err := t.SpendMailToken(token, TokenPortalSignIn)
		if err != nil {
			return nil, err
		}
		u, err := t.EndUser(env.ID, id)
		if ErrorCode(err) == ECodeNotFound {
			// Another environment's: the refusal rolls the spending back.
			return nil, ErrMailLinkInvalid()
		}
		return u, err
	})
}

// openPortalSession finds the end-user with who (nil, nil: a refusal it
// audited, answered invalid_credentials), refuses a banned or disabled one
// and stores a session token with the user.login entry, in one write.
func (sv *Service) openPortalSession(ctx context.Context, ps PortalScope, method string, who func(Tx, *Application, *Environment) (*EndUser, error)) (*PortalSession, error) {
	token := NewSecret("")
	var out *PortalSession
	refused := false
	err := sv.update(ctx, func(t Tx) error {
		out, refused = nil, false
		a, env, err := portalApp(t, ps)
		if err != nil {
			return err
		}
		u, err := who(t, a, env)
		if err != nil {
			return err
		}
		if u == nil {
			refused = true
			return nil
		}
		switch u.Status {
		case UserBanned, UserDisabled:
			return ErrAccountRefused(u.Status)
		}
		if err := t.PutMailToken(token, TokenPortalSession, u.ID, PortalSessionTTL); err != nil {
			return err
		}
		out = &PortalSession{Token: token, User: u, ExpiresAt: t.Now().Add(PortalSessionTTL)}
		return t.Audit(AuditEvent{Event: EventUserLogin, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"by": "portal", "method": method}})
	})
	if err != nil {
		return nil, err
	}
	if refused {
		return nil, ErrEndUserCredentials()
	}
	return out, nil
}

// PortalSessionUser returns the end-user of a live session of the scope's
// environment. Returns invalid_token (unknown, expired, signed out, another
// environment's, the end-user gone, banned or disabled), not_found.
func (sv *Service) PortalSessionUser(ctx context.Context, ps PortalScope, token string) (*EndUser, error) {
	var u *EndUser
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := portalApp(t, ps)
		if err != nil {
			return err
		}
		k, err := t.MailToken(token)
		if err != nil {
			return err
		}
		if token == "" || k.State(t.Now()) != TokenStateValid || k.Purpose != TokenPortalSession {
			return Errorf(ECodeInvalidToken, "not signed in")
		}
		u, err = t.EndUser(env.ID, k.SubjectID)
		if ErrorCode(err) == ECodeNotFound || (err == nil && u.Status != UserActive) {
			return Errorf(ECodeInvalidToken, "not signed in")
		}
		return err
	})
	return u, err
}

// PortalSignOut spends a portal session; one already ended is no error.
func (sv *Service) PortalSignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	err := sv.update(ctx, func(t Tx) error {
		_, err := t.SpendMailToken(token, TokenPortalSession)
		return err
	})
	if ErrorCode(err) == ECodeInvalidToken {
		return nil
	}
	return err
}

// PortalLinkState is the TokenState of a sign-in link.
func (sv *Service) PortalLinkState(ctx context.Context, token string) (string, error) {
	state := TokenStateUnknown
	err := sv.view(ctx, func(t Tx) error {
		k, err := t.MailToken(token)
		if err != nil || token == "" || k == nil || k.Purpose != TokenPortalSignIn {
			return err
		}
		state = k.State(t.Now())
		return nil
	})
	return state, err
}

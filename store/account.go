package store

import (
	"context"
	"time"
)

// Purposes of the single-use tokens sent by mail (docs/design.md §8).
const (
	TokenVerifyEmail   = "verify_email"
	TokenResetPassword = "reset_password"
)

// DashboardSession is a dashboard member's signed-in session. Its id rides in
// the access token, so ending the session (logout, reset-password, removal of
// the member) ends the token before it expires.
type DashboardSession struct {
	ID        string
	MemberID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SignupInput registers an organization and its owner.
type SignupInput struct {
	FirstName        string
	LastName         string
	OrganizationName string
	Email            string
	Password         string
	Phone            string
	TOSVersion       string
	// VerifyTTL is the lifetime of the verification token.
	VerifyTTL time.Duration
}

// SignupResult says what a signup did, for the caller to send the right mail.
// The caller must answer the same either way (anti-enumeration).
type SignupResult struct {
	// Existing is true when the address already had an account: nothing was
	// created, Member is that account and the owner is sent a notice.
	Existing bool
	// Member is the new unverified owner, or the existing account.
	Member *Member
	// Organization is the new organization; nil when Existing.
	Organization *Organization
	// VerifyToken is the plaintext verification token; "" when Existing.
	VerifyToken string
}

// LoginResult is a successful dashboard login or e-mail verification.
type LoginResult struct {
	Member  *Member
	Session *DashboardSession
}

// Accounts stores dashboard accounts: signup, mail tokens, passwords and
// dashboard sessions. Tokens are stored hashed and are single use.
type Accounts interface {
	// Signup creates an organization, its unverified owner and a verification
	// token. When the address is already registered it does the same password
	// hashing work, creates nothing and reports Existing. Returns
	// validation_failed (names, e-mail form, password policy).
	Signup(ctx context.Context, in SignupInput) (*SignupResult, error)
	// IssueMailToken creates a token of purpose for the account of email and
	// returns the account and the plaintext token. Returns not_found when
	// there is no such account or, for TokenVerifyEmail, when its address is
	// already verified.
	IssueMailToken(ctx context.Context, email, purpose string, ttl time.Duration) (*Member, string, error)
	// VerifyEmail spends a verification token: it marks the member (and the
	// organization it owns) verified and opens a dashboard session lasting
	// sessionTTL. Returns invalid_token (unknown, expired or used).
	VerifyEmail(ctx context.Context, token string, sessionTTL time.Duration) (*LoginResult, error)
	// ResetPassword spends a reset token, sets the new password and revokes
	// every dashboard session of the account. The partner identities linked
	// while the account's address was unverified are unlinked: whoever linked
	// them had not shown they hold the address the reset mail reached.
	// Returns invalid_token,
	// validation_failed (password policy; the token is not spent).
	ResetPassword(ctx context.Context, token, newPassword string) (*Member, error)
	// Login checks the password and opens a dashboard session lasting
	// sessionTTL. An unknown address costs the same hashing work as a wrong
	// password. Returns invalid_credentials, rate_limited (hasher saturated).
	Login(ctx context.Context, email, password string, sessionTTL time.Duration) (*LoginResult, error)
	// DashboardSession returns a live session and its member. Returns
	// unauthenticated when the session is unknown, revoked or expired, or the
	// member is gone.
	DashboardSession(ctx context.Context, id string) (*LoginResult, error)
	// RevokeDashboardSession ends a session; revoking twice is not an error.
	RevokeDashboardSession(ctx context.Context, id string) error
	// UseChallenge records a spent anti-bot challenge until expires and
	// reports whether this was its first use.
	UseChallenge(ctx context.Context, key string, expires time.Time) (first bool, err error)
}

package postgres

// Not yet built: the accounts part (see the brief).

import (
	"context"
	"errors"
	"io"
	"time"

	"licensectl/store"
)

var _ = io.EOF
var _ = time.Second
var _ context.Context

var errNotBuiltaccounts = errors.New("postgres: not built yet")

// CreateOrganization implements store.Organizations.
func (db *DB) CreateOrganization(ctx context.Context, in store.CreateOrganizationInput) (*store.Organization, error) {
	return nil, errNotBuiltaccounts
}

// FindOrganization implements store.Organizations.
func (db *DB) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	return nil, errNotBuiltaccounts
}

// ListOrganizations implements store.Organizations.
func (db *DB) ListOrganizations(ctx context.Context) ([]*store.Organization, error) {
	return nil, errNotBuiltaccounts
}

// UpdateOrganization implements store.Organizations.
func (db *DB) UpdateOrganization(ctx context.Context, id string, upd store.OrganizationUpdate) (*store.Organization, error) {
	return nil, errNotBuiltaccounts
}

// AddMember implements store.Members.
func (db *DB) AddMember(ctx context.Context, in store.AddMemberInput) (*store.Member, error) {
	return nil, errNotBuiltaccounts
}

// FindMember implements store.Members.
func (db *DB) FindMember(ctx context.Context, orgID string, id string) (*store.Member, error) {
	return nil, errNotBuiltaccounts
}

// ListMembers implements store.Members.
func (db *DB) ListMembers(ctx context.Context, orgID string) ([]*store.Member, error) {
	return nil, errNotBuiltaccounts
}

// RemoveMember implements store.Members.
func (db *DB) RemoveMember(ctx context.Context, orgID string, id string) error {
	return errNotBuiltaccounts
}

// DashboardSession implements store.Accounts.
func (db *DB) DashboardSession(ctx context.Context, id string) (*store.LoginResult, error) {
	return nil, errNotBuiltaccounts
}

// IssueMailToken implements store.Accounts.
func (db *DB) IssueMailToken(ctx context.Context, email string, purpose string, ttl time.Duration) (*store.Member, string, error) {
	return nil, "", errNotBuiltaccounts
}

// Login implements store.Accounts.
func (db *DB) Login(ctx context.Context, email string, password string, sessionTTL time.Duration) (*store.LoginResult, error) {
	return nil, errNotBuiltaccounts
}

// ResetPassword implements store.Accounts.
func (db *DB) ResetPassword(ctx context.Context, token string, newPassword string) (*store.Member, error) {
	return nil, errNotBuiltaccounts
}

// RevokeDashboardSession implements store.Accounts.
func (db *DB) RevokeDashboardSession(ctx context.Context, id string) error {
	return errNotBuiltaccounts
}

// Signup implements store.Accounts.
func (db *DB) Signup(ctx context.Context, in store.SignupInput) (*store.SignupResult, error) {
	return nil, errNotBuiltaccounts
}

// UseChallenge implements store.Accounts.
func (db *DB) UseChallenge(ctx context.Context, key string, expires time.Time) (bool, error) {
	return false, errNotBuiltaccounts
}

// VerifyEmail implements store.Accounts.
func (db *DB) VerifyEmail(ctx context.Context, token string, sessionTTL time.Duration) (*store.LoginResult, error) {
	return nil, errNotBuiltaccounts
}

// MailTokenState implements store.MailTokens.
func (db *DB) MailTokenState(ctx context.Context, token string, purpose string) (string, error) {
	return "", errNotBuiltaccounts
}

// Onboarding implements store.Onboarding.
func (db *DB) Onboarding(ctx context.Context, memberID string) (*store.OnboardingProgress, error) {
	return nil, errNotBuiltaccounts
}

// UpdateOnboarding implements store.Onboarding.
func (db *DB) UpdateOnboarding(ctx context.Context, memberID string, u store.OnboardingUpdate) (*store.OnboardingProgress, error) {
	return nil, errNotBuiltaccounts
}

// CompleteProfile implements store.Partners.
func (db *DB) CompleteProfile(ctx context.Context, memberID string, in store.ProfileInput) (*store.Organization, error) {
	return nil, errNotBuiltaccounts
}

// CreatePartnerAttempt implements store.Partners.
func (db *DB) CreatePartnerAttempt(ctx context.Context, state string, ttl time.Duration) error {
	return errNotBuiltaccounts
}

// PartnerSignIn implements store.Partners.
func (db *DB) PartnerSignIn(ctx context.Context, id store.PartnerIdentity, sessionTTL time.Duration) (*store.PartnerSignInResult, error) {
	return nil, errNotBuiltaccounts
}

// SpendPartnerAttempt implements store.Partners.
func (db *DB) SpendPartnerAttempt(ctx context.Context, state string) error {
	return errNotBuiltaccounts
}

package store

import (
	"context"
	"time"
)

// PartnerIdentity is who an OpenID Connect provider says signed in: the
// identity is (Issuer, Subject); Email and EmailVerified are the provider's
// claims at this sign-in.
type PartnerIdentity struct {
	Issuer        string
	Subject       string
	Email         string
	EmailVerified bool
}

// PartnerSignInResult is a successful partner sign-in.
type PartnerSignInResult struct {
	Member  *Member
	Session *DashboardSession
	// Linked is true when this sign-in attached the identity to an account:
	// an existing one (by a provider-verified address) or a new one.
	Linked bool
	// Created is true when a new account without organization was made.
	Created bool
}

// LinkTo prepares m, the existing account of the identity's address, for
// the link that verifies it, and reports whether its other ways in must end
// (its dashboard sessions). An account whose address was never proven may
// have been opened by anyone who typed the address, waiting for its owner
// to arrive through a provider (account pre-hijacking): the password set
// then is dropped, so that only the provider's sign-in, or a password the
// owner sets through forgot-password, opens the now verified account.
func (id PartnerIdentity) LinkTo(m *Member) (endSessions bool) {
	if m.EmailVerified {
		return false
	}
	m.PasswordHash = ""
	return true
}

// ProfileInput finishes an account made by partner sign-in: the fields of
// signup that the provider does not give.
type ProfileInput struct {
	FirstName        string
	LastName         string
	OrganizationName string
	Phone            string
	TOSVersion       string
}

// CheckProfileOpen refuses, with conflict, to complete the profile of an
// account that has an organization already.
func (m *Member) CheckProfileOpen() error {
	if m.OrgID != "" {
		return Errorf(ECodeConflict, "the profile is already complete: the account has an organization")
	}
	return nil
}

// CompleteProfile makes m the owner of its new organization orgID with the
// fields of in, at now.
func (m *Member) CompleteProfile(orgID string, in ProfileInput, now time.Time) {
	m.OrgID, m.Role = orgID, RoleOwner
	m.FirstName, m.LastName = in.FirstName, in.LastName
	m.Phone, m.TOSVersion, m.UpdatedAt = in.Phone, in.TOSVersion, now
}

// Partners stores partner (OpenID Connect) sign-in: the short-lived sign-in
// attempts, the identities linked to accounts, and the completion of accounts
// created that way (docs/design.md §8).
type Partners interface {
	// CreatePartnerAttempt records a sign-in attempt by its state, stored
	// hashed, usable once until ttl has passed.
	CreatePartnerAttempt(ctx context.Context, state string, ttl time.Duration) error
	// SpendPartnerAttempt uses the attempt of state up. Returns invalid_state
	// when it is unknown, expired or already spent.
	SpendPartnerAttempt(ctx context.Context, state string) error
	// PartnerSignIn signs in the account of a provider identity and opens a
	// dashboard session lasting sessionTTL. A known identity signs in to its
	// account. A new one needs the provider to have verified its address
	// (else partner_email_unverified, and nothing is created or linked): it
	// is linked to the account of that address, or to a new, verified
	// account without organization. Linking to an account whose address
	// was not verified drops its password and ends its dashboard sessions
	// (PartnerIdentity.LinkTo). Returns partner_failed when the provider
	// gave no usable address.
	PartnerSignIn(ctx context.Context, id PartnerIdentity, sessionTTL time.Duration) (*PartnerSignInResult, error)
	// CompleteProfile creates the organization of an account without one,
	// with the account as owner. Returns validation_failed, conflict when the
	// account already has an organization.
	CompleteProfile(ctx context.Context, memberID string, in ProfileInput) (*Organization, error)
}

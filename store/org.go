package store

import (
	"context"
	"time"
)

// Organization is a vendor's account: it owns members, API keys and applications.
type Organization struct {
	ID            string
	Name          string
	Slug          string
	EmailVerified bool // the owner who signed up has verified the address
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Member roles of docs/design.md §4.
const (
	RoleOwner     = "owner"
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleViewer    = "viewer"
)

// CheckOwnersLeft refuses taking an owner from an organization that has
// owners of them. Returns last_owner.
func CheckOwnersLeft(owners int) error {
	if owners <= 1 {
		return Errorf(ECodeLastOwner, "an organization must keep at least one owner")
	}
	return nil
}

// ValidRole reports whether r is a member role.
func ValidRole(r string) bool {
	switch r {
	case RoleOwner, RoleAdmin, RoleDeveloper, RoleViewer:
		return true
	}
	return false
}

// Member is a dashboard account. A member belongs to at most one organization;
// OrgID is empty for a partner sign-in that has not completed its profile.
type Member struct {
	ID            string
	OrgID         string
	Email         string // lower-cased
	PasswordHash  string
	FirstName     string
	LastName      string
	Phone         string
	Role          string
	EmailVerified bool
	TOSVersion    string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// OrganizationUpdate is a partial update; nil fields are left as they are.
type OrganizationUpdate struct {
	Name *string
}

// CreateOrganizationInput creates an organization, optionally with a verified
// owner (operator and CLI use; dashboard users get theirs through signup).
type CreateOrganizationInput struct {
	Name          string
	OwnerEmail    string
	OwnerPassword string
}

// AddMemberInput adds a dashboard member with a password; the member is
// created verified because the inviter vouches for the address.
type AddMemberInput struct {
	OrgID     string
	Email     string
	Password  string
	Role      string
	FirstName string
	LastName  string
}

// Organizations stores organizations.
type Organizations interface {
	// FindOrganization returns not_found when id is unknown.
	FindOrganization(ctx context.Context, id string) (*Organization, error)
	// ListOrganizations lists every organization, newest first (operator only).
	ListOrganizations(ctx context.Context) ([]*Organization, error)
	// CreateOrganization creates an organization with a unique slug derived from
	// its name and, when OwnerEmail is set, its verified owner. Returns
	// validation_failed, email_taken.
	CreateOrganization(ctx context.Context, in CreateOrganizationInput) (*Organization, error)
	// UpdateOrganization returns validation_failed, not_found.
	UpdateOrganization(ctx context.Context, id string, upd OrganizationUpdate) (*Organization, error)
}

// Members stores dashboard members of an organization.
type Members interface {
	// ListMembers lists the organization's members, oldest first.
	ListMembers(ctx context.Context, orgID string) ([]*Member, error)
	// FindMember returns not_found unless the member belongs to orgID.
	FindMember(ctx context.Context, orgID, id string) (*Member, error)
	// AddMember returns validation_failed (weak password, bad role or e-mail),
	// email_taken.
	AddMember(ctx context.Context, in AddMemberInput) (*Member, error)
	// RemoveMember returns not_found, last_owner.
	RemoveMember(ctx context.Context, orgID, id string) error
}

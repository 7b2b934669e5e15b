package api

import (
	"time"
)

// AddMemberRequest is the body of POST /organizations/members.
type AddMemberRequest struct {
	Email     string `json:"email"`
	Password  string `json:"password"`
	Role      string `json:"role"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// MemberAdded answers POST /organizations/members.
type MemberAdded struct {
	Success  bool   `json:"success"`
	Message  string `json:"message"`
	MemberID string `json:"member_id"`
}

// MemberItem is a member in lists; exactly the fields of the interface.
type MemberItem struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// OrganizationDetail answers GET /organizations/me.
type OrganizationDetail struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Slug          string    `json:"slug"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	EmailVerified bool      `json:"email_verified"`
}

// OrganizationUpdated answers PATCH /organizations/me.
type OrganizationUpdated struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	UpdatedAt time.Time `json:"updated_at"`
}

// UpdateOrganizationRequest is the body of PATCH /organizations/me.
type UpdateOrganizationRequest struct {
	Name *string `json:"name,omitempty"`
}

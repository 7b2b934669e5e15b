package api

import (
	"time"
)

// AdminOrganization is an organization as the operator endpoints return it.
type AdminOrganization struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Slug          string    `json:"slug"`
	EmailVerified bool      `json:"email_verified"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// CreateOrganizationRequest is the body of POST /v1/admin/organizations. The
// owner is optional; when given, it is created verified with this password.
type CreateOrganizationRequest struct {
	Name          string `json:"name"`
	OwnerEmail    string `json:"owner_email"`
	OwnerPassword string `json:"owner_password"`
}

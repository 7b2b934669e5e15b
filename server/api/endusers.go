package api

import (
	"time"
)

// DeviceItem is a device in lists. UserID is null when no end-user signed in
// on the device.
type DeviceItem struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Name        string     `json:"name"`
	Platform    string     `json:"platform"`
	Status      string     `json:"status"`
	UserID      *string    `json:"user_id"`
	LicenseIDs  []string   `json:"license_ids"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// EndUserItem is an end-user in lists.
type EndUserItem struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Status      string     `json:"status"`
	Roles       []string   `json:"roles"`
	LastLoginAt *time.Time `json:"last_login_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// EndUserRoles answers a role change.
type EndUserRoles struct {
	Success bool     `json:"success"`
	UserID  string   `json:"user_id"`
	Roles   []string `json:"roles"`
}

// RoleRequest is the body of POST /auth/users/{user_id}/roles.
type RoleRequest struct {
	RoleID string `json:"role_id"`
}

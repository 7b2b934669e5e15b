package api

import (
	"time"
)

// GenerateLicensesRequest is the body of POST /applications/{id}/licenses.
// ExpiresAt is RFC 3339; Quantity defaults to 1.
type GenerateLicensesRequest struct {
	PlanID         string   `json:"plan_id"`
	Quantity       *int     `json:"quantity,omitempty"`
	ExpiresAt      *string  `json:"expires_at,omitempty" format:"date-time"`
	EntitlementIDs []string `json:"entitlement_ids,omitempty"`
}

// LicenseDetail is the detail read of a license.
type LicenseDetail struct {
	ID                    string           `json:"id"`
	Key                   string           `json:"key"`
	Status                string           `json:"status"`
	Plan                  PlanRef          `json:"plan"`
	User                  *UserRef         `json:"user"`
	Devices               []LicenseDevice  `json:"devices"` // the first page, newest first; the rest: GET …/devices?license_id=
	DevicesCount          int              `json:"devices_count"`
	Entitlements          []EntitlementRef `json:"entitlements"`
	ActivatedAt           *time.Time       `json:"activated_at"`
	ExpiresAt             *time.Time       `json:"expires_at"`
	DeviceResetsRemaining int              `json:"device_resets_remaining"`
	CreatedAt             time.Time        `json:"created_at"`
	UpdatedAt             time.Time        `json:"updated_at"`
}

// LicenseDevice is a device bound to a license, in the license detail.
type LicenseDevice struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Status      string     `json:"status"`
	BoundAt     time.Time  `json:"bound_at"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
}

// LicenseItem is a license in lists and in the generation answer. Status is
// the effective status: an inactive or active license past expires_at reads
// as expired.
type LicenseItem struct {
	ID           string     `json:"id"`
	Key          string     `json:"key"`
	Status       string     `json:"status"`
	Plan         PlanRef    `json:"plan"`
	User         *UserRef   `json:"user"`
	DevicesCount int        `json:"devices_count"`
	ActivatedAt  *time.Time `json:"activated_at"`
	ExpiresAt    *time.Time `json:"expires_at"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// LicensesGenerated answers license generation.
type LicensesGenerated struct {
	Licenses []LicenseItem `json:"licenses"`
}

// PlanRef is the plan of a license.
type PlanRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ResetDeviceRequest is the body of POST .../reset-device.
type ResetDeviceRequest struct {
	DeviceID string `json:"device_id"`
}

// StatusChanged answers a status PATCH.
type StatusChanged struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// StatusRequest is the body of the status PATCH of licenses, users and devices.
type StatusRequest struct {
	Status string `json:"status"`
}

// UserRef is the end-user a license is assigned to.
type UserRef struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// ActiveSessions answers the session count of a license or a device: the
// sessions a suspension (or a block) would revoke now.
type ActiveSessions struct {
	ActiveSessions int `json:"active_sessions"`
}

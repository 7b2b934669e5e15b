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
	MaintenanceExpiresAt  *time.Time       `json:"maintenance_expires_at"` // null: updates never end
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
	// MaintenanceExpiresAt ends update eligibility; null is unlimited.
	MaintenanceExpiresAt *time.Time `json:"maintenance_expires_at"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
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

// LicenseUpdateRequest is the body of PATCH on a license: any of its
// fields (status: active, suspended, revoked or banned), applied together
// or not at all. The server reads it field by
// field (null clears expires_at, maintenance_expires_at and user_id), so
// this type is the body's description rather than its decoder.
type LicenseUpdateRequest struct {
	Status string `json:"status,omitempty"`
	// ExpiresAt is RFC 3339; null makes the license perpetual; in the past
	// it is expired at once.
	ExpiresAt *string `json:"expires_at,omitempty" format:"date-time" nullable:"true"`
	// MaintenanceExpiresAt is RFC 3339; null allows updates for ever.
	MaintenanceExpiresAt *string `json:"maintenance_expires_at,omitempty" format:"date-time" nullable:"true"`
	// PlanID moves the license to another plan of its application.
	PlanID string `json:"plan_id,omitempty"`
	// UserID hands the license to another end-user of its environment;
	// null unassigns it.
	UserID *string `json:"user_id,omitempty" nullable:"true"`
}

// RenewLicenseRequest is the body of POST …/licenses/{licenseId}/renew.
// Days defaults to the plan's duration_days.
type RenewLicenseRequest struct {
	Days            *int `json:"days,omitempty"`
	MaintenanceDays *int `json:"maintenance_days,omitempty"`
}

// RenewLicensesRequest is the body of the bulk renewal.
type RenewLicensesRequest struct {
	LicenseIDs []string `json:"license_ids"`
	Days       *int     `json:"days,omitempty"`
}

// LicensesRenewed answers the bulk renewal: the licenses in the order asked.
type LicensesRenewed struct {
	Licenses []LicenseItem `json:"licenses"`
}

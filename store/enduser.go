package store

import (
	"context"
	"time"
)

// End-user and device statuses of docs/design.md §6.
const (
	UserActive    = "active"
	UserBanned    = "banned"
	UserDisabled  = "disabled"
	DeviceActive  = "active"
	DeviceBlocked = "blocked"
)

// EndUser is a user of a vendor's desktop application, in one environment.
type EndUser struct {
	ID           string
	AppID        string
	EnvID        string
	Email        string
	PasswordHash string
	Status       string
	Roles        []string
	LastLoginAt  *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Device is a machine identified by its fingerprint, in one environment.
type Device struct {
	ID             string
	AppID          string
	EnvID          string
	Fingerprint    string
	Name           string
	Platform       string
	Status         string
	UserID         string
	LicenseIDs     []string
	TrialLicenseID string // the trial license this device activated, if any
	LastSeenAt     *time.Time
	CreatedAt      time.Time
	// Components are the hashed identifiers the device last sent
	// (docs/design.md §17); nil when it never sent any.
	Components []DeviceComponent
}

// DeviceUnbound is not a status: it is how an active device bound to no
// license reads in lists (Standing), since "active" there suggested a seat
// it no longer holds after a reset.
const DeviceUnbound = "unbound"

// Standing is the device's status as a person reads it: its status, except
// that an active device bound to no license is DeviceUnbound.
func (d *Device) Standing() string {
	if d.Status == DeviceActive && len(d.LicenseIDs) == 0 {
		return DeviceUnbound
	}
	return d.Status
}

// StatusFilter selects a page of end-users or devices. Email (end-users only)
// and Fingerprint (devices only) look one record up exactly, so the page holds
// at most one item. LicenseID (devices only, alone) pages the devices bound
// to one license, newest first.
type StatusFilter struct {
	Status      string
	Email       string
	Fingerprint string
	LicenseID   string
	PageRequest
}

// EndUserRoles is the answer of a role change.
type EndUserRoles struct {
	UserID string
	Roles  []string
}

// EndUsers stores end-users.
type EndUsers interface {
	// ListEndUsers returns a page, newest first.
	ListEndUsers(ctx context.Context, s Scope, f StatusFilter) (*Page[*EndUser], error)
	// SetEndUserStatus moves the user to active, banned or disabled; the last
	// two revoke the user's sessions. Returns validation_failed, not_found.
	SetEndUserStatus(ctx context.Context, s Scope, id, status string) (*EndUser, error)
	// AddEndUserRole attaches a role (idempotent) to an end-user of any
	// application of the organization. Returns validation_failed, not_found.
	AddEndUserRole(ctx context.Context, orgID, userID, role string) (*EndUserRoles, error)
	// RemoveEndUserRole detaches a role (idempotent). Returns not_found.
	RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*EndUserRoles, error)
}

// Devices stores devices.
type Devices interface {
	// ListDevices returns a page, newest first.
	ListDevices(ctx context.Context, s Scope, f StatusFilter) (*Page[*Device], error)
	// SetDeviceStatus moves the device to active or blocked; blocking revokes
	// its sessions. Returns validation_failed, not_found.
	SetDeviceStatus(ctx context.Context, s Scope, id, status string) (*Device, error)
	// CountDeviceSessions is how many of the device's sessions are live now:
	// not revoked and inside their idle and absolute lifetimes (what
	// blocking it would revoke). Returns not_found.
	CountDeviceSessions(ctx context.Context, s Scope, deviceID string) (int, error)
}

// End-user password bounds. End-users are the vendor's customers; the vendor
// chose them, so only length and the common-password list apply.
const (
	MinEndUserPassword = 8
	MaxEndUserPassword = 256
)

// Fingerprint bounds.
const MaxFingerprint = 256

package api

import (
	"time"

	"licensectl/store"
)

// The runtime API's bodies (docs/design.md §5): what an application sends and
// receives.

// RuntimeApplication answers POST /v1/runtime/applications/init.
type RuntimeApplication struct {
	ApplicationID string `json:"application_id"`
	Name          string `json:"name"`
	Environment   string `json:"environment"`
}

// Registered answers POST /v1/runtime/auth/register.
type Registered struct {
	UserID string `json:"user_id"`
}

// Activated answers POST /v1/runtime/licenses/activate: the session, the
// entitlements and the license's standing.
type Activated struct {
	RuntimeSession
	Entitlements []string         `json:"entitlements"`
	License      ActivatedLicense `json:"license"`
}

// ActivatedLicense is the standing of the license an activation bound.
type ActivatedLicense struct {
	Status    string     `json:"status"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// DeviceReset answers POST /v1/runtime/devices/reset.
type DeviceReset struct {
	Success   bool `json:"success"`
	Remaining int  `json:"device_resets_remaining"`
}

// RuntimeSession is a runtime session's token pair: the answer of login and
// refresh.
type RuntimeSession struct {
	AccessToken      string    `json:"access_token"`
	RefreshToken     string    `json:"refresh_token"`
	AccessExpiresAt  time.Time `json:"access_expires_at"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at"`
}

// Replay are the anti-replay fields of login and activate, embedded in
// their bodies.
type Replay struct {
	Timestamp string `json:"timestamp" format:"date-time"`
	Nonce     string `json:"nonce"`
}

// AccessToken is a body carrying one access token: logout and validate.
type AccessToken struct {
	AccessToken string `json:"access_token"`
}

// Valid is the answer of a validation that passed.
type Valid struct {
	Valid        bool      `json:"valid"`
	Entitlements []string  `json:"entitlements"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// Invalid is the answer of a validation that did not pass, with the first
// reason of the cascade.
type Invalid struct {
	Valid  bool   `json:"valid"`
	Reason string `json:"reason"`
}

// RuntimeRegisterRequest is the body of POST /v1/runtime/auth/register.
type RuntimeRegisterRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// RuntimeLoginRequest is the body of POST /v1/runtime/auth/login.
type RuntimeLoginRequest struct {
	Email       string `json:"email"`
	Password    string `json:"password"`
	Fingerprint string `json:"device_fingerprint"`
	// Components are the device's hashed identifiers, stored with it.
	Components []DeviceComponent `json:"device_components,omitempty"`
	// Altcha is a solved challenge (GET /v1/mgmt/auth/challenge), needed
	// once the account's failed logins from all addresses reach their bound.
	Altcha string `json:"altcha,omitempty"`
	Replay
}

// ActivateRequest is the body of POST /v1/runtime/licenses/activate.
type ActivateRequest struct {
	LicenseKey  string `json:"license_key"`
	Fingerprint string `json:"device_fingerprint"`
	// Components are the device's hashed identifiers: stored with it, and
	// what recognises a bound device under a new fingerprint.
	Components []DeviceComponent `json:"device_components,omitempty"`
	Replay
}

// DeviceComponent is one hashed identifier of a device (its machine id, a
// disk serial, a MAC), hashed by the client (docs/design.md §17).
type DeviceComponent struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// StoreComponents are the components of a request as the store takes them.
func StoreComponents(in []DeviceComponent) []store.DeviceComponent {
	if in == nil {
		return nil
	}
	out := make([]store.DeviceComponent, len(in))
	for i, c := range in {
		out[i] = store.DeviceComponent(c)
	}
	return out
}

// MachineFileRequest is the body of POST /v1/runtime/licenses/checkout.
type MachineFileRequest struct {
	TTL        *int   `json:"ttl,omitempty"`     // seconds
	Encrypt    *bool  `json:"encrypt,omitempty"` // default true
	LicenseKey string `json:"license_key,omitempty"`
	Replay
}

// MachineFileIssued answers a machine file checkout.
type MachineFileIssued struct {
	Certificate string    `json:"certificate"`
	IssuedAt    time.Time `json:"issued_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	TTL         int       `json:"ttl"`
}

// LicenseMachineFileRequest is the body of POST
// /v1/mgmt/applications/{id}/licenses/{licenseId}/machine-files: a file for
// an air-gapped device.
type LicenseMachineFileRequest struct {
	Fingerprint string `json:"fingerprint"`
	TTLDays     *int   `json:"ttl_days,omitempty"` // default: the plan's max_offline_days
	Encrypt     *bool  `json:"encrypt,omitempty"`  // default true
	// UserEmail names the end-user the file is for (the license must be
	// theirs or nobody's).
	UserEmail string `json:"user_email,omitempty"`
}

// LicenseMachineFileIssued answers a management machine file checkout.
type LicenseMachineFileIssued struct {
	MachineFileIssued
	DeviceID string `json:"device_id"`
}

// LeaseRequest is the body of POST /v1/runtime/leases.
type LeaseRequest struct {
	Replay
}

// LeaseGranted answers POST /v1/runtime/leases.
type LeaseGranted struct {
	LeaseID       string    `json:"lease_id"`
	ExpiresAt     time.Time `json:"expires_at"`
	SeatsInUse    int       `json:"seats_in_use"`
	MaxConcurrent int       `json:"max_concurrent"`
}

// LeaseExtended answers POST /v1/runtime/leases/{id}/heartbeat.
type LeaseExtended struct {
	ExpiresAt time.Time `json:"expires_at"`
}

// LeaseItem is a live lease in the management list of a license's leases.
type LeaseItem struct {
	ID          string    `json:"id"`
	DeviceID    string    `json:"device_id"`
	Fingerprint string    `json:"fingerprint"`
	ExpiresAt   time.Time `json:"expires_at"`
	CreatedAt   time.Time `json:"created_at"`
}

// RefreshRequest is the body of POST /v1/runtime/sessions/refresh.
type RefreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// RuntimeDeviceResetRequest is the body of POST /v1/runtime/devices/reset:
// the device is named by exactly one of its fingerprint and its id.
type RuntimeDeviceResetRequest struct {
	LicenseKey  string `json:"license_key"`
	Fingerprint string `json:"device_fingerprint,omitempty"`
	DeviceID    string `json:"device_id,omitempty"`
}

// LicenseDevicesRequest is the body of POST /v1/runtime/licenses/devices.
// Fingerprint, optional, is the caller's own device, which the answer marks
// current.
type LicenseDevicesRequest struct {
	LicenseKey  string `json:"license_key"`
	Fingerprint string `json:"device_fingerprint,omitempty"`
	Replay
}

// SelfServiceDevice is a device bound to a license as the application shows
// it to its customer: never its fingerprint.
type SelfServiceDevice struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Platform   string     `json:"platform"`
	LastSeenAt *time.Time `json:"last_seen_at"`
	BoundAt    time.Time  `json:"bound_at"`
	Current    bool       `json:"current"`
}

// LicenseDevices answers POST /v1/runtime/licenses/devices: the license's
// devices, newest first.
type LicenseDevices struct {
	Data []SelfServiceDevice `json:"data"`
}

// Granted answers GET /v1/runtime/entitlements/check.
type Granted struct {
	Granted bool `json:"granted"`
}

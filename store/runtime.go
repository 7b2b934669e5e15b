package store

import (
	"context"
	"time"
)

// Validation reasons of docs/design.md §5, in the order the cascade checks them:
// the first that applies is the root cause reported.
const (
	ReasonTokenInvalid     = "token_invalid"
	ReasonAppDisabled      = "application_disabled"
	ReasonLicenseRevoked   = "license_revoked"
	ReasonLicenseBanned    = "license_banned"
	ReasonLicenseSuspended = "license_suspended"
	ReasonLicenseExpired   = "license_expired"
	ReasonUserBanned       = "user_banned"
	ReasonUserDisabled     = "user_disabled"
	ReasonDeviceBlocked    = "device_blocked"
	ReasonSessionRevoked   = "session_revoked"
	ReasonTokenExpired     = "token_expired"
	// ReasonLeaseRequired: the license has floating seats and the device
	// holds no live lease; checked after every other reason.
	ReasonLeaseRequired = "lease_required"
)

// Nonce bounds of the anti-replay check (docs/design.md §5).
const (
	MinNonce = 16
	MaxNonce = 128
)

// RuntimeClient is how a runtime request names its application environment:
// by public key, or by application id and environment name.
type RuntimeClient struct {
	PublicKey string
	AppID     string
	Env       string // environment name; "" means production
}

// RuntimeApp is the application environment a runtime request addresses.
// Its values are shared read-only copies: callers must not modify them.
type RuntimeApp struct {
	App *Application
	Env *Environment
}

// Replay is the anti-replay part of a login or activation request.
type Replay struct {
	Timestamp time.Time
	Nonce     string
}

// RuntimeLoginInput logs an end-user in on a device.
type RuntimeLoginInput struct {
	Email       string
	Password    string
	Fingerprint string
	// Components are the device's hashed identifiers (docs/design.md §17),
	// stored with the device.
	Components []DeviceComponent
	Replay
}

// ActivateInput activates a license on a device. UserToken, when set, is an
// end-user access token: the license is assigned to that user.
type ActivateInput struct {
	LicenseKey  string
	Fingerprint string
	UserToken   string
	// Components are the device's hashed identifiers (docs/design.md §17):
	// stored with the device, and what recognises a bound device under a
	// new fingerprint.
	Components []DeviceComponent
	Replay
}

// DeviceResetInput unbinds a device from a license by its fingerprint or,
// for a customer freeing a machine that is gone, by its id: exactly one of
// Fingerprint and DeviceID is set.
type DeviceResetInput struct {
	LicenseKey  string
	Fingerprint string
	DeviceID    string
	// ByUser is the end-user who resets from the self-service portal: the
	// license must be theirs (else not_found), and the audit entry names
	// them as its actor. "" for the runtime's reset.
	ByUser string
}

// LicenseDevicesInput asks, from the application, for the devices bound to
// a license (docs/design.md §17). Fingerprint, optional, is the caller's own
// device: the one the answer marks current.
type LicenseDevicesInput struct {
	LicenseKey  string
	Fingerprint string
	Replay
}

// MaxSelfServiceDevices is how many devices the application's devices list
// carries: the newest, as a license detail pages them.
const MaxSelfServiceDevices = MaxPerPage

// SelfServiceDevice is a device bound to a license as its customer sees it:
// no fingerprint, which identifies a machine. Current marks the caller's.
type SelfServiceDevice struct {
	ID         string
	Name       string
	Platform   string
	LastSeenAt *time.Time
	BoundAt    time.Time
	Current    bool
}

// RuntimeSession is a newly issued token pair.
type RuntimeSession struct {
	SessionID        string
	AccessToken      string
	RefreshToken     string
	AccessExpiresAt  time.Time
	RefreshExpiresAt time.Time
	Entitlements     []string
}

// Activation is the answer of a license activation.
type Activation struct {
	RuntimeSession
	LicenseStatus    string
	LicenseExpiresAt *time.Time
}

// Validation is the answer of a session validation: Valid with the current
// entitlements and the access token's expiry, or not Valid with a Reason.
type Validation struct {
	Valid        bool
	Reason       string
	Entitlements []string
	ExpiresAt    time.Time
}

// AccessClaims are the claims of a runtime access token (docs/design.md §5).
type AccessClaims struct {
	ID           string // jti: makes every token distinct
	Issuer       string
	Audience     string // application id
	Subject      string // end-user id, or license id for license-only sessions
	SessionID    string
	Env          string // environment name
	LicenseID    string
	DeviceID     string
	Entitlements []string
	Roles        []string
	// MaintenanceExpiresAt is the license's maintenance end (claim mnt);
	// nil when unlimited or the session has no license.
	MaintenanceExpiresAt *time.Time
	IssuedAt             time.Time
	ExpiresAt            time.Time
}

// TokenSigner signs access tokens with an environment's key. It must be a
// pure function of its inputs: it runs inside group-commit closures that may
// run more than once.
type TokenSigner func(env *Environment, c AccessClaims) (string, error)

// Runtime is the runtime API's store: sessions, activation, validation and
// the per-organization request counter. Every method that takes a
// RuntimeClient resolves it and returns invalid_application for an unknown
// application and application_disabled for a disabled one, unless stated.
type Runtime interface {
	Leases
	// CheckoutMachineFile gathers what a machine file of the session's
	// license and device says (docs/design.md §13) and records the checkout.
	// Returns validation_failed, stale_timestamp, nonce_reused,
	// session_invalid, license_mismatch, offline_not_allowed.
	CheckoutMachineFile(ctx context.Context, c RuntimeClient, in MachineFileInput) (*MachineFile, error)
	// ResolveApp returns the application environment named by c, a
	// disabled one too (callers check App.Status). Returns
	// invalid_application, validation_failed (environment name).
	ResolveApp(ctx context.Context, c RuntimeClient) (*RuntimeApp, error)
	// Login checks the password, anti-replay fields and statuses and opens a
	// session on the device. Returns validation_failed, stale_timestamp,
	// nonce_reused, invalid_credentials, forbidden (user banned or
	// disabled), device_blocked.
	Login(ctx context.Context, c RuntimeClient, in RuntimeLoginInput) (*RuntimeSession, error)
	// Logout revokes the session of an access token; an already revoked one
	// is not an error. Returns invalid_token.
	Logout(ctx context.Context, c RuntimeClient, accessToken string) error
	// Activate binds the device to the license and opens a session. Returns
	// validation_failed, stale_timestamp, nonce_reused, not_found,
	// invalid_token (UserToken), license_revoked/suspended/banned/expired,
	// license_owned_by_other_user, device_blocked, device_limit_reached,
	// trial_already_used.
	Activate(ctx context.Context, c RuntimeClient, in ActivateInput) (*Activation, error)
	// Validate checks an access token through the whole cascade. A disabled
	// application is a reason here, not an error; only invalid_application
	// is returned as an error.
	Validate(ctx context.Context, c RuntimeClient, accessToken string) (*Validation, error)
	// Refresh rotates a refresh token. Returns invalid_token,
	// session_invalid, refresh_token_reused (and revokes the session).
	Refresh(ctx context.Context, c RuntimeClient, refreshToken string) (*RuntimeSession, error)
	// ResetDevice unbinds the fingerprint's device from the license, revokes
	// its sessions of that license and consumes one reset. Returns
	// validation_failed, not_found, reset_limit_reached.
	ResetDevice(ctx context.Context, c RuntimeClient, in DeviceResetInput) (remaining int, err error)
	// LicenseDevices lists the devices bound to the license of in's key,
	// newest first, at most MaxSelfServiceDevices, and consumes the nonce.
	// Returns validation_failed, stale_timestamp, nonce_reused, not_found.
	LicenseDevices(ctx context.Context, c RuntimeClient, in LicenseDevicesInput) ([]SelfServiceDevice, error)
	// AddRuntimeRequests adds counts of runtime requests per organization to
	// the month (UTC) of at.
	AddRuntimeRequests(ctx context.Context, at time.Time, counts map[string]int64) error
	// RuntimeRequests is the number of runtime requests of the organization
	// counted in the month (UTC) of at.
	RuntimeRequests(ctx context.Context, orgID string, at time.Time) (int64, error)
}

// MonthKey is the UTC calendar month of t as "YYYY-MM", the period of the
// runtime request counter.
func MonthKey(t time.Time) string { return t.UTC().Format("2006-01") }

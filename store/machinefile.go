package store

import (
	"context"
	"strings"
	"time"
)

// Machine file TTL bounds (docs/design.md §13): a requested TTL is at least an
// hour and at most the plan's max_offline_days.
const MinMachineFileTTL = 3600

// MachineFileInput checks a machine file out with an activation session.
type MachineFileInput struct {
	AccessToken string
	// TTL is the requested lifetime in seconds; 0 asks for the plan's
	// maximum.
	TTL     int
	Encrypt bool
	// LicenseKey must be the session's license key; required to encrypt.
	LicenseKey string
	Replay
}

// Check validates a checkout's fields before anything is looked up: the
// anti-replay fields, and a well-formed license key, which encrypting
// requires. Returns validation_failed.
func (in MachineFileInput) Check() error {
	if err := in.Replay.Check(); err != nil {
		return err
	}
	if in.Encrypt && in.LicenseKey == "" {
		return Invalid("license_key", "license_key is required to encrypt the file")
	}
	if in.LicenseKey != "" {
		if _, err := CheckLicenseKey("license_key", in.LicenseKey); err != nil {
			return err
		}
	}
	return nil
}

// MachineFile is what a machine file says, with the environment whose key
// signs it. The caller builds and signs the certificate.
type MachineFile struct {
	Env          *Environment
	AppID        string
	IssuedAt     time.Time
	ExpiresAt    time.Time
	TTL          int // seconds granted
	License      License
	Plan         Plan
	Entitlements []string
	Device       Device
	User         *EndUser
}

// MachineFileTTL is the TTL in seconds granted for a request of ttl
// seconds (0: the maximum) on a plan allowing maxDays days. Returns
// offline_not_allowed, validation_failed naming ttl.
func MachineFileTTL(ttl, maxDays int) (int, error) {
	if maxDays <= 0 {
		return 0, Errorf(ECodeOfflineNotAllowed, "the license's plan allows no offline use")
	}
	most := maxDays * 24 * 3600
	if ttl == 0 {
		return most, nil
	}
	if ttl < MinMachineFileTTL || ttl > most {
		return 0, Invalid("ttl", "ttl must be between %d and %d seconds (the plan's max_offline_days)", MinMachineFileTTL, most)
	}
	return ttl, nil
}

// LicenseMachineFileInput asks for a machine file of a license for an
// air-gapped device (docs/design.md §13): the device is bound as an activation
// binds it, without a runtime session.
type LicenseMachineFileInput struct {
	Fingerprint string
	// TTLDays is the requested lifetime in days; 0 asks for the plan's
	// max_offline_days.
	TTLDays int
	Encrypt bool
	// UserEmail names an end-user of the environment the file is for: the
	// license must be theirs or nobody's (then it becomes theirs), as with an
	// activation by a logged-in user. "" leaves the license's user as it is.
	UserEmail string
}

// Check validates the request and returns it with the fingerprint and
// address trimmed. Returns validation_failed.
func (in LicenseMachineFileInput) Check() (LicenseMachineFileInput, error) {
	var err error
	if in.Fingerprint, err = CheckText("fingerprint", in.Fingerprint, 1, MaxFingerprint); err != nil {
		return in, err
	}
	if in.TTLDays < 0 || in.TTLDays > MaxOfflineDays {
		return in, Invalid("ttl_days", "ttl_days must be between 1 and %d", MaxOfflineDays)
	}
	in.UserEmail = strings.TrimSpace(in.UserEmail)
	return in, nil
}

// MachineFileTTLDays is the TTL in seconds granted for a request of days
// days (0: the maximum) on a plan allowing maxDays days. Returns
// offline_not_allowed, validation_failed naming ttl_days.
func MachineFileTTLDays(days, maxDays int) (int, error) {
	if maxDays > 0 && days > maxDays {
		return 0, Invalid("ttl_days", "ttl_days must be between 1 and %d (the plan's max_offline_days)", maxDays)
	}
	return MachineFileTTL(days*24*3600, maxDays)
}

// IssuedMachineFile is a signed machine file and what it says of its
// lifetime: the answer of a checkout.
type IssuedMachineFile struct {
	Certificate string
	IssuedAt    time.Time
	ExpiresAt   time.Time
	TTL         int // seconds granted
	// DeviceID is the device the file is for (bound by the checkout).
	DeviceID string
}

// MachineFiles issues machine files for air-gapped devices.
type MachineFiles interface {
	// IssueMachineFile binds the device of in.Fingerprint to the license as
	// an activation would (a seat taken, the license activated) and returns
	// a machine file for it, signed with the environment's key. Returns
	// validation_failed, not_found, offline_not_allowed,
	// device_limit_reached, device_blocked, trial_already_used, the
	// license's status errors (license_suspended, ...), license_not_owned.
	IssueMachineFile(ctx context.Context, s Scope, licenseID string, in LicenseMachineFileInput) (*IssuedMachineFile, error)
}

// MachineFileSigner builds the signed file of mf (docs/design.md §13),
// encrypted to its license key and fingerprint when encrypt. It is injected
// into a store like the token signer and pix.Checkout, so that the store
// does not know the file format (offline.Sign is the one in use).
type MachineFileSigner func(mf *MachineFile, encrypt bool) (*IssuedMachineFile, error)

// PlanOrDefaults is p, or for a license whose plan is gone a stand-in with
// the default lease length, which offline use and seats fall back to.
func PlanOrDefaults(p *Plan) *Plan {
	if p != nil {
		return p
	}
	return &Plan{LeaseSeconds: DefaultLeaseSeconds}
}

// OfflineDays is the plan's max_offline_days; PlanOrDefaults' stand-in for a
// plan gone keeps the default.
func (p *Plan) OfflineDays() int {
	if p.ID == "" {
		return DefaultOfflineDays
	}
	return p.MaxOfflineDays
}

// NewMachineFile is the content of a machine file of l (under plan p, with
// the entitlement keys ents, owned by user, nil for none) on dev, issued
// at now and valid ttl seconds or until the license expires, whichever
// comes first. The file carries the plan as stored, its entitlements as
// keys apart.
func NewMachineFile(ra *RuntimeApp, l *License, p *Plan, dev *Device, user *EndUser, ents []string, ttl int, now time.Time) *MachineFile {
	exp := now.Add(time.Duration(ttl) * time.Second)
	if l.ExpiresAt != nil && l.ExpiresAt.Before(exp) {
		exp = *l.ExpiresAt
	}
	plan := *p
	plan.Entitlements = nil
	mf := &MachineFile{Env: ra.Env, AppID: ra.App.ID, IssuedAt: now, ExpiresAt: exp, TTL: ttl, License: *l, Plan: plan,
		Entitlements: ents, Device: *dev, User: user}
	mf.License.Status = l.EffectiveStatus(now)
	return mf
}

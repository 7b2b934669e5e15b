package store

import "time"

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

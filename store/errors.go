package store

import (
	"errors"
	"fmt"
)

// Error codes. They are the codes of docs/design.md §7; the HTTP layer maps each to a
// status in one place (server/errors.go), and the HTTP client maps bodies back
// into an *Error, so callers behave the same locally and remotely.
const (
	ECodeValidation        = "validation_failed"
	ECodeInvalidJSON       = "invalid_json"
	ECodeInvalidState      = "invalid_state"
	ECodePartnerDenied     = "partner_denied"
	ECodePartnerFailed     = "partner_failed"
	ECodeProfileIncomplete = "profile_incomplete"
	ECodeUnauthenticated   = "unauthenticated"
	ECodeInvalidCreds      = "invalid_credentials"
	ECodeInvalidToken      = "invalid_token"
	ECodeInvalidApp        = "invalid_application"
	ECodeStaleTimestamp    = "stale_timestamp"
	ECodeSessionInvalid    = "session_invalid"
	ECodeRefreshReused     = "refresh_token_reused"
	ECodeRefreshRotated    = "refresh_token_rotated"
	ECodeForbidden         = "forbidden"
	ECodeEmailUnverified   = "email_not_verified"
	ECodePlanLimit         = "plan_limit_reached"
	ECodeDeviceLimit       = "device_limit_reached"
	ECodeResetLimit        = "reset_limit_reached"
	ECodeTrialUsed         = "trial_already_used"
	ECodeAppDisabled       = "application_disabled"
	ECodeDeviceBlocked     = "device_blocked"
	ECodeLicenseOwned      = "license_owned_by_other_user"
	ECodeLicenseRevoked    = "license_revoked"
	ECodeLicenseSuspend    = "license_suspended"
	ECodeLicenseBanned     = "license_banned"
	ECodeLicenseExpired    = "license_expired"
	ECodeChallenge         = "challenge_required"
	ECodeNotFound          = "not_found"
	ECodeMethod            = "method_not_allowed"
	ECodeConflict          = "conflict"
	ECodeSlugTaken         = "slug_taken"
	ECodeEmailTaken        = "email_taken"
	ECodePlanInUse         = "plan_in_use"
	ECodeLastOwner         = "last_owner"
	ECodeNonceReused       = "nonce_reused"
	ECodeTransition        = "invalid_transition"
	ECodeBodyTooLarge      = "body_too_large"
	ECodeRateLimited       = "rate_limited"
	ECodeMonthlyQuota      = "monthly_quota_exceeded"
	ECodeInternal          = "internal"
	ECodeUnavailable       = "unavailable"
	// ECodeOverloaded: a write waited for the writer past
	// server.max_queue_wait and was not made (docs/design.md §14).
	ECodeOverloaded = "overloaded"

	// ECodeBackupUnsupported: the store is not one file the server can
	// stream (store.FileBackup); back it up with its database's tools.
	ECodeBackupUnsupported = "backup_unsupported"

	// ECodePartnerEmailUnverified refuses a new partner identity whose
	// provider did not verify its address (docs/design.md §8).
	ECodePartnerEmailUnverified = "partner_email_unverified"
	// ECodeLeaseNotFound: the lease expired, was released or never was.
	ECodeLeaseNotFound = "lease_not_found"
	// ECodeSeatsExhausted: every floating seat of the license is held by a
	// live lease; RetryAfter is when the first one ends.
	ECodeSeatsExhausted = "seats_exhausted"
	// ECodeLicenseMismatch: the license key sent is not the session's.
	ECodeLicenseMismatch = "license_mismatch"
	// ECodeOfflineNotAllowed: the plan allows no machine files.
	ECodeOfflineNotAllowed = "offline_not_allowed"
	// ECodeTooManyDevices: a plan change would leave more devices bound
	// than the new plan's max_devices.
	ECodeTooManyDevices = "too_many_devices"
)

// Error is the one error type of the domain. Code is one of the ECode constants;
// Message is safe to show to the caller; Field names the offending request field
// for validation errors; RetryAfter is set for throttling errors; Err is an
// underlying cause that is logged but never shown.
type Error struct {
	Code       string
	Message    string
	Field      string
	RetryAfter int // seconds
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a validation_failed error naming the offending field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: ECodeValidation, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns a not_found error for the named kind of resource.
func NotFound(kind string) *Error {
	return &Error{Code: ECodeNotFound, Message: kind + " not found"}
}

// ErrOverloaded refuses a write that waited past server.max_queue_wait: it
// was not made (docs/design.md §14).
func ErrOverloaded() *Error {
	return &Error{Code: ECodeOverloaded, Message: "the server is overloaded: the write was not made; retry after Retry-After seconds", RetryAfter: 1}
}

// ErrorCode returns the code of err: the Code of an *Error in its chain,
// "" for nil, and internal for anything else.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ECodeInternal
}

// ErrorMessage returns the caller-safe message of err; anything that is not an
// *Error gets a fixed message so that internals never leak.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// AsError returns the *Error in err's chain, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ErrRecordBusy answers a runtime write whose records kept changing under
// it (a device another request kept creating): the client retries.
func ErrRecordBusy() error {
	return &Error{Code: ECodeUnavailable, Message: "the record kept changing during the request; retry", RetryAfter: 1}
}

package store

import "time"

// CascadeInput is what the validation cascade of design.md §5 looks at, as
// plain values, so that a backend validating a session and a terminal UI
// explaining a license ask the same function. Records a session names but
// that no longer exist are the backend's to report (token_invalid) before it
// calls Cascade.
type CascadeInput struct {
	AppStatus    string
	License      *License // nil for a login session
	UserStatus   string   // "" when no end-user is signed in
	DeviceStatus string   // "" when no device is concerned
	Revoked      bool     // the session itself was revoked
	// AccessExpiresAt, when set, is the access token's expiry. Refresh leaves
	// it nil: it checks the refresh token's own lifetimes.
	AccessExpiresAt *time.Time
}

// Cascade returns the first reason of design.md §5's order that makes the
// input unusable at now, or "" when it is usable: application, license,
// end-user, device, session, access token expiry.
func Cascade(in CascadeInput, now time.Time) string {
	if in.AppStatus != AppActive {
		return ReasonAppDisabled
	}
	if in.License != nil {
		if reason := LicenseReason(in.License, now); reason != "" {
			return reason
		}
	}
	switch in.UserStatus {
	case UserBanned:
		return ReasonUserBanned
	case UserDisabled:
		return ReasonUserDisabled
	}
	if in.DeviceStatus == DeviceBlocked {
		return ReasonDeviceBlocked
	}
	if in.Revoked {
		return ReasonSessionRevoked
	}
	if in.AccessExpiresAt != nil && !now.Before(*in.AccessExpiresAt) {
		return ReasonTokenExpired
	}
	return ""
}

// LicenseReason is the validation reason a license's effective status at now
// causes, or "" when the license is usable (inactive or active, unexpired).
func LicenseReason(l *License, now time.Time) string {
	switch l.EffectiveStatus(now) {
	case LicenseRevoked:
		return ReasonLicenseRevoked
	case LicenseBanned:
		return ReasonLicenseBanned
	case LicenseSuspended:
		return ReasonLicenseSuspended
	case LicenseExpired:
		return ReasonLicenseExpired
	}
	return ""
}

// LicenseError is the activation error of design.md §6 for a license reason
// (license_revoked, license_banned, license_suspended, license_expired), or
// nil for "" and for reasons that are not about the license.
func LicenseError(reason string) error {
	switch reason {
	case ReasonLicenseRevoked:
		return Errorf(ECodeLicenseRevoked, "the license is revoked")
	case ReasonLicenseBanned:
		return Errorf(ECodeLicenseBanned, "the license is banned")
	case ReasonLicenseSuspended:
		return Errorf(ECodeLicenseSuspend, "the license is suspended")
	case ReasonLicenseExpired:
		return Errorf(ECodeLicenseExpired, "the license has expired")
	}
	return nil
}

// explanations say each reason in words, for people reading a terminal.
var explanations = map[string]string{
	"":                     "valid: every check of the cascade passes",
	ReasonTokenInvalid:     "the token is malformed, unknown, or names a record that no longer exists",
	ReasonAppDisabled:      "the application is disabled",
	ReasonLicenseRevoked:   "the license was revoked",
	ReasonLicenseBanned:    "the license was banned",
	ReasonLicenseSuspended: "the license is suspended",
	ReasonLicenseExpired:   "the license has expired",
	ReasonUserBanned:       "the end-user is banned",
	ReasonUserDisabled:     "the end-user is disabled",
	ReasonDeviceBlocked:    "the device is blocked",
	ReasonSessionRevoked:   "the session was revoked",
	ReasonTokenExpired:     "the access token has expired; refresh it",
}

// Explain says a Cascade reason in words. An unknown reason is returned as is.
func Explain(reason string) string {
	if s, ok := explanations[reason]; ok {
		return s
	}
	return reason
}

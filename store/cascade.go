package store

import "time"

// CascadeStep is one check of the session validation cascade as
// ExplainSession reports it.
type CascadeStep struct {
	Check  string // what is checked, e.g. "license status"
	Reason string // the validation reason this check gives when it fails
	OK     bool
	Detail string // the state read, e.g. "suspended"; escaped (Printable) for a terminal
}

// sessionCheck is one step of the cascade: the reason it fails with, or "".
type sessionCheck struct {
	check  string
	reason func(app *Application, lic *License, user *EndUser, dev *Device, now time.Time) string
	detail func(app *Application, lic *License, user *EndUser, dev *Device, now time.Time) string
}

// sessionChecks is the validation cascade of docs/design.md §5 over the records a
// session names, in the server's order. The runtime's validation and the
// TUI's explanation both walk this one list, so they cannot disagree. A nil
// license or user is a session without one (login or license session).
var sessionChecks = [...]sessionCheck{
	{"application", func(app *Application, _ *License, _ *EndUser, _ *Device, _ time.Time) string {
		if app.Status != AppActive {
			return ReasonAppDisabled
		}
		return ""
	}, func(app *Application, _ *License, _ *EndUser, _ *Device, _ time.Time) string {
		return app.Slug + " is " + app.Status
	}},
	{"license status", func(_ *Application, lic *License, _ *EndUser, _ *Device, now time.Time) string {
		if lic == nil {
			return ""
		}
		return LicenseReason(lic, now)
	}, func(_ *Application, lic *License, _ *EndUser, _ *Device, now time.Time) string {
		if lic == nil {
			return "no license"
		}
		return lic.EffectiveStatus(now)
	}},
	{"user status", func(_ *Application, _ *License, user *EndUser, _ *Device, _ time.Time) string {
		if user == nil {
			return ""
		}
		switch user.Status {
		case UserBanned:
			return ReasonUserBanned
		case UserDisabled:
			return ReasonUserDisabled
		}
		return ""
	}, func(_ *Application, _ *License, user *EndUser, _ *Device, _ time.Time) string {
		if user == nil {
			return "no user"
		}
		return user.Email + " is " + user.Status
	}},
	{"device status", func(_ *Application, _ *License, _ *EndUser, dev *Device, _ time.Time) string {
		if dev != nil && dev.Status == DeviceBlocked {
			return ReasonDeviceBlocked
		}
		return ""
	}, func(_ *Application, _ *License, _ *EndUser, dev *Device, _ time.Time) string {
		if dev == nil {
			return "no device"
		}
		return dev.Fingerprint + " is " + dev.Status
	}},
}

// SessionReason is the first reason the cascade refuses a session of these
// records at now, or "" when they all allow it. The session's own state
// (revoked, token expiry) is checked by the runtime after it.
func SessionReason(app *Application, lic *License, user *EndUser, dev *Device, now time.Time) string {
	for i := range sessionChecks {
		if r := sessionChecks[i].reason(app, lic, user, dev, now); r != "" {
			return r
		}
	}
	return ""
}

// ExplainSession reports every check of the cascade for a session of lic on
// dev for user, in the server's order, and the reason validation would
// return ("" when valid). dev may be nil to explain the license alone.
func ExplainSession(app *Application, lic *License, user *EndUser, dev *Device, now time.Time) (string, []CascadeStep) {
	reason := ""
	steps := make([]CascadeStep, 0, len(sessionChecks))
	for i := range sessionChecks {
		ch := &sessionChecks[i]
		r := ch.reason(app, lic, user, dev, now)
		steps = append(steps, CascadeStep{Check: ch.check, Reason: r, OK: r == "", Detail: Printable(ch.detail(app, lic, user, dev, now))})
		if reason == "" {
			reason = r
		}
	}
	return reason, steps
}

// LicenseReason maps a license's effective status to the validation reason
// (and activation error code) it causes, or "" when it is usable.
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

// LicenseError is the activation error of docs/design.md §6 for a license reason
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
	ReasonLeaseRequired:    "the license has floating seats and this device holds no live lease",
}

// Explain says a validation reason in words. An unknown reason is returned
// as is.
func Explain(reason string) string {
	if s, ok := explanations[reason]; ok {
		return s
	}
	return reason
}

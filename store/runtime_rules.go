package store

import (
	"slices"
	"time"
)

// The runtime's refusals that follow from records a store has loaded. A
// store looks the records up; these decide, so every store refuses the same
// activation, login or reset with the same code and message.

// CheckActive refuses a disabled application. Returns application_disabled.
func (a *Application) CheckActive() error {
	if a.Status != AppActive {
		return Errorf(ECodeAppDisabled, "the application is disabled")
	}
	return nil
}

// CheckUsable refuses a blocked device. Returns device_blocked.
func (d *Device) CheckUsable() error {
	if d.Status == DeviceBlocked {
		return Errorf(ECodeDeviceBlocked, "the device is blocked")
	}
	return nil
}

// CheckOwner refuses the license to a signed-in end-user (userID, "" for
// none) other than the one it belongs to. Returns
// license_owned_by_other_user.
func (l *License) CheckOwner(userID string) error {
	if userID != "" && l.UserID != "" && l.UserID != userID {
		return Errorf(ECodeLicenseOwned, "the license belongs to another user")
	}
	return nil
}

// CheckBind decides whether dev (nil: a device not seen before) may be used
// with l under its plan; bound says whether dev is bound to l already and
// devices how many devices l has bound. An unbound device takes a seat:
// none may be left, and a trial plan's license is one per device. Returns
// device_blocked, device_limit_reached, trial_already_used.
func CheckBind(l *License, plan *Plan, dev *Device, bound bool, devices int) error {
	if dev != nil {
		if err := dev.CheckUsable(); err != nil {
			return err
		}
	}
	if bound {
		return nil
	}
	if devices >= plan.MaxDevices {
		return Errorf(ECodeDeviceLimit, "the license is bound to its maximum of %d devices", plan.MaxDevices)
	}
	if dev != nil {
		return dev.checkTrial(l, plan)
	}
	return nil
}

// checkTrial refuses binding d to l when l's plan is a trial and d used
// another. Returns trial_already_used.
func (d *Device) checkTrial(l *License, plan *Plan) error {
	if plan.IsTrial && d.TrialLicenseID != "" && d.TrialLicenseID != l.ID {
		return Errorf(ECodeTrialUsed, "this device already used a trial of this application")
	}
	return nil
}

// CheckResetLeft refuses a self-service device reset at now when the
// license has none left under plan p: with a reset window, Retry-After says
// when the oldest reset in it leaves. Returns reset_limit_reached.
func (l *License) CheckResetLeft(p *Plan, now time.Time) error {
	left, retry := l.ResetsRemaining(p, now)
	if left > 0 {
		return nil
	}
	e := Errorf(ECodeResetLimit, "the license has no device resets left")
	if retry > 0 {
		e.RetryAfter = int((retry + time.Second - 1) / time.Second)
		e.Message = "the license has no device resets left in its reset window"
	}
	return e
}

// RecordActivation moves l as an activation by userID ("" for none) at now
// does, under plan: an inactive license becomes active, expiring
// plan.DurationDays later when it has no expiry yet (its maintenance
// plan.MaintenanceDays later, likewise), and a license without
// an owner takes the user. It reports whether l changed (UpdatedAt is the
// caller's, who may have changed l otherwise).
func (l *License) RecordActivation(plan *Plan, userID string, now time.Time) bool {
	changed := false
	if l.Status == LicenseInactive {
		activated := now
		l.Status, l.ActivatedAt, changed = LicenseActive, &activated, true
		if plan.DurationDays != nil && l.ExpiresAt == nil {
			exp := ExpiresAfter(now, *plan.DurationDays)
			l.ExpiresAt = &exp
		}
		if plan.MaintenanceDays != nil && l.MaintenanceExpiresAt == nil {
			mnt := ExpiresAfter(now, *plan.MaintenanceDays)
			l.MaintenanceExpiresAt = &mnt
		}
	}
	if userID != "" && l.UserID == "" {
		l.UserID, changed = userID, true
	}
	return changed
}

// RecordBinding records on d that an activation by userID ("" for none)
// bound it to l under plan at now: l joins its licenses (in a new slice, as
// d may be a shared copy), the first trial license it activates is its
// trial, a device without an owner takes the user, and, an activation being
// a sighting, it was last seen now.
func (d *Device) RecordBinding(l *License, plan *Plan, userID string, now time.Time) {
	ids := make([]string, 0, len(d.LicenseIDs)+1)
	d.LicenseIDs = append(append(ids, d.LicenseIDs...), l.ID)
	if plan.IsTrial && d.TrialLicenseID == "" {
		d.TrialLicenseID = l.ID
	}
	if userID != "" && d.UserID == "" {
		d.UserID = userID
	}
	seen := now
	d.LastSeenAt = &seen
}

// WithoutLicense is d's licenses but licenseID, in a new slice, as d may be
// a shared copy.
func (d *Device) WithoutLicense(licenseID string) []string {
	return slices.DeleteFunc(slices.Clone(d.LicenseIDs), func(id string) bool { return id == licenseID })
}

// MayRebind reports whether d, a device not bound to l, may take the
// binding of a bound device of l its components match (docs/design.md
// §17): not when it is blocked, nor when l is a trial and d used another
// trial, as binding it would be refused.
func (d *Device) MayRebind(l *License, plan *Plan) bool {
	return d.CheckUsable() == nil && d.checkTrial(l, plan) == nil
}

// SessionSubject is what a runtime session is about: the claims of its
// access tokens besides their times and ids.
type SessionSubject struct {
	LicenseID    string // "" for a login session
	UserID       string // "" for a license session without a signed-in user
	DeviceID     string
	Entitlements []string
	Roles        []string
	// MaintenanceExpiresAt is the license's maintenance end, read with the
	// license the session already checks; nil when unlimited.
	MaintenanceExpiresAt *time.Time
}

// RefreshExpiries are the expiries of a session's refresh token opened at
// now: idle for at most RefreshIdleTTL, and never past the session's
// absolute lifetime, RefreshAbsoluteTTL from now.
func (o RuntimeOptions) RefreshExpiries(now time.Time) (refresh, absolute time.Time) {
	absolute = now.Add(o.RefreshAbsoluteTTL)
	refresh = now.Add(o.RefreshIdleTTL)
	if absolute.Before(refresh) {
		refresh = absolute
	}
	return refresh, absolute
}

// KeySet sorts keys in place and drops duplicates: the entitlement keys a
// session or machine file carries. It never returns nil, since an empty set
// is the JSON array [].
func KeySet(keys []string) []string {
	if len(keys) == 0 {
		return []string{}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// SignAccess issues an access token of session sid for s in ra at now, with
// token id jti, by o's signer, and returns it with its expiry (now +
// AccessTTL). Its subject is the user, or the license when there is none.
func (o RuntimeOptions) SignAccess(now time.Time, ra *RuntimeApp, s SessionSubject, sid, jti string) (string, time.Time, error) {
	exp := now.Add(o.AccessTTL)
	sub := s.UserID
	if sub == "" {
		sub = s.LicenseID
	}
	roles := s.Roles
	if roles == nil {
		roles = []string{}
	}
	tok, err := o.Signer(ra.Env, AccessClaims{
		ID: jti, Issuer: o.Issuer, Audience: ra.App.ID, Subject: sub, SessionID: sid, Env: ra.Env.Name,
		LicenseID: s.LicenseID, DeviceID: s.DeviceID, Entitlements: s.Entitlements, Roles: roles, MaintenanceExpiresAt: s.MaintenanceExpiresAt, IssuedAt: now, ExpiresAt: exp,
	})
	return tok, exp, err
}

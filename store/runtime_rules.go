package store

import "time"

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
	if plan.IsTrial && dev != nil && dev.TrialLicenseID != "" && dev.TrialLicenseID != l.ID {
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

package store

import "testing"

func TestRuntimeRules(t *testing.T) {
	lic := &License{ID: NewID(), UserID: "u1", DeviceIDs: []string{"d1"}, DeviceResetsRemaining: 1}
	plan := &Plan{MaxDevices: 2}
	trial := &Plan{MaxDevices: 2, IsTrial: true}
	bound := &Device{ID: "d1", Status: DeviceActive}
	free := &Device{ID: "d2", Status: DeviceActive}
	blocked := &Device{ID: "d1", Status: DeviceBlocked}
	usedTrial := &Device{ID: "d3", Status: DeviceActive, TrialLicenseID: NewID()}
	full := &License{ID: lic.ID, DeviceIDs: []string{"d1", "d9"}}
	for _, tt := range []struct {
		name      string
		check     func() error
		code, msg string
	}{
		{"OK/AppActive", (&Application{Status: AppActive}).CheckActive, "", ""},
		{"ErrApplicationDisabled", (&Application{Status: AppDisabled}).CheckActive, ECodeAppDisabled, "the application is disabled"},
		{"OK/DeviceUsable", bound.CheckUsable, "", ""},
		{"ErrDeviceBlocked", blocked.CheckUsable, ECodeDeviceBlocked, "the device is blocked"},
		{"OK/OwnerSame", func() error { return lic.CheckOwner("u1") }, "", ""},
		{"OK/OwnerAnonymous", func() error { return lic.CheckOwner("") }, "", ""},
		{"OK/OwnerUnowned", func() error { return (&License{}).CheckOwner("u2") }, "", ""},
		{"ErrLicenseOwnedByOtherUser", func() error { return lic.CheckOwner("u2") }, ECodeLicenseOwned, "the license belongs to another user"},
		{"OK/ResetLeft", lic.CheckResetLeft, "", ""},
		{"ErrResetLimitReached", (&License{}).CheckResetLeft, ECodeResetLimit, "the license has no device resets left"},
		{"ErrDeviceBlocked/Bind", func() error { _, err := CheckBind(lic, plan, blocked); return err }, ECodeDeviceBlocked, "the device is blocked"},
		{"ErrDeviceLimitReached", func() error { _, err := CheckBind(full, plan, free); return err }, ECodeDeviceLimit, "the license is bound to its maximum of 2 devices"},
		{"ErrDeviceLimitReached/NewDevice", func() error { _, err := CheckBind(full, plan, nil); return err }, ECodeDeviceLimit, "the license is bound to its maximum of 2 devices"},
		{"ErrTrialAlreadyUsed", func() error { _, err := CheckBind(lic, trial, usedTrial); return err }, ECodeTrialUsed, "this device already used a trial of this application"},
		{"OK/BoundOnFullLicense", func() error { return wantBound(CheckBind(full, plan, bound)) }, "", ""},
		{"OK/TrialOfThisLicense", func() error {
			return wantUnbound(CheckBind(lic, trial, &Device{ID: "d4", TrialLicenseID: lic.ID}))
		}, "", ""},
		{"OK/NewDevice", func() error { return wantUnbound(CheckBind(lic, trial, nil)) }, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if ErrorCode(err) != tt.code || (err != nil && ErrorMessage(err) != tt.msg) {
				t.Fatalf("got %v, want %s: %q", err, tt.code, tt.msg)
			}
		})
	}
}

func wantBound(bound bool, err error) error   { return errIf(!bound, err) }
func wantUnbound(bound bool, err error) error { return errIf(bound, err) }

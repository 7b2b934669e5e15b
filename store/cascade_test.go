package store

import (
	"testing"
	"time"
)

func TestExplainSession(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	app := func(st string) *Application { return &Application{Slug: "a", Status: st} }
	lic := func(st string, exp *time.Time) *License { return &License{Status: st, ExpiresAt: exp} }
	user := func(st string) *EndUser { return &EndUser{Email: "u@x.test", Status: st} }
	dev := func(st string) *Device { return &Device{Fingerprint: "fp", Status: st} }
	tests := []struct {
		name   string
		app    *Application
		lic    *License
		user   *EndUser
		dev    *Device
		reason string
	}{
		{"OK", app(AppActive), lic(LicenseActive, nil), user(UserActive), dev(DeviceActive), ""},
		{"OKLoginSession", app(AppActive), nil, user(UserActive), dev(DeviceActive), ""},
		{"ErrAppDisabledFirst", app(AppDisabled), lic(LicenseRevoked, nil), user(UserBanned), dev(DeviceBlocked), ReasonAppDisabled},
		{"ErrLicenseBeforeUser", app(AppActive), lic(LicenseSuspended, nil), user(UserBanned), dev(DeviceBlocked), ReasonLicenseSuspended},
		{"ErrExpiredByTime", app(AppActive), lic(LicenseActive, &past), user(UserActive), dev(DeviceActive), ReasonLicenseExpired},
		{"ErrRevoked", app(AppActive), lic(LicenseRevoked, nil), nil, dev(DeviceActive), ReasonLicenseRevoked},
		{"ErrBanned", app(AppActive), lic(LicenseBanned, nil), nil, dev(DeviceActive), ReasonLicenseBanned},
		{"ErrUserBeforeDevice", app(AppActive), lic(LicenseActive, nil), user(UserDisabled), dev(DeviceBlocked), ReasonUserDisabled},
		{"ErrUserBanned", app(AppActive), nil, user(UserBanned), dev(DeviceActive), ReasonUserBanned},
		{"ErrDeviceBlocked", app(AppActive), lic(LicenseActive, nil), user(UserActive), dev(DeviceBlocked), ReasonDeviceBlocked},
		{"OKNoDevice", app(AppActive), lic(LicenseInactive, nil), nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, steps := ExplainSession(tt.app, tt.lic, tt.user, tt.dev, now)
			if reason != tt.reason {
				t.Fatalf("reason %q, want %q", reason, tt.reason)
			}
			if got := SessionReason(tt.app, tt.lic, tt.user, tt.dev, now); got != reason {
				t.Fatalf("SessionReason %q, ExplainSession %q", got, reason)
			}
			first := ""
			for _, s := range steps {
				if !s.OK && first == "" {
					first = s.Reason
				}
			}
			if first != reason || len(steps) != len(sessionChecks) {
				t.Fatalf("steps %+v: first failure %q, want %q", steps, first, reason)
			}
		})
	}
}

func TestLicenseError(t *testing.T) {
	for reason, code := range map[string]string{
		ReasonLicenseRevoked: ECodeLicenseRevoked, ReasonLicenseBanned: ECodeLicenseBanned,
		ReasonLicenseSuspended: ECodeLicenseSuspend, ReasonLicenseExpired: ECodeLicenseExpired,
	} {
		if got := ErrorCode(LicenseError(reason)); got != code {
			t.Errorf("LicenseError(%s) = %s, want %s", reason, got, code)
		}
	}
	for _, reason := range []string{"", ReasonDeviceBlocked, ReasonTokenExpired} {
		if err := LicenseError(reason); err != nil {
			t.Errorf("LicenseError(%q) = %v, want nil", reason, err)
		}
	}
}

func TestExplainSaysEveryReason(t *testing.T) {
	for _, r := range []string{"", ReasonTokenInvalid, ReasonAppDisabled, ReasonLicenseRevoked, ReasonLicenseBanned, ReasonLicenseSuspended,
		ReasonLicenseExpired, ReasonUserBanned, ReasonUserDisabled, ReasonDeviceBlocked, ReasonSessionRevoked, ReasonTokenExpired} {
		if Explain(r) == r || Explain(r) == "" {
			t.Errorf("Explain(%q) = %q", r, Explain(r))
		}
	}
	if Explain("made_up") != "made_up" {
		t.Error("an unknown reason is not returned as is")
	}
}

func TestExplainSessionDetailIsPrintable(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	_, steps := ExplainSession(&Application{Slug: "a", Status: AppActive}, nil, &EndUser{Email: "u\x1b@x.test", Status: UserActive},
		&Device{Fingerprint: "fp\x1b]0;x\x07", Status: DeviceActive}, now)
	for _, s := range steps {
		if _, bad := UnsafeRune(s.Detail); bad {
			t.Fatalf("step %q detail %q holds a control", s.Check, s.Detail)
		}
	}
}

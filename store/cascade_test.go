package store

import (
	"testing"
	"time"
)

func TestCascade(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	usable := func() CascadeInput {
		return CascadeInput{AppStatus: AppActive, License: &License{Status: LicenseActive, ExpiresAt: &future},
			UserStatus: UserActive, DeviceStatus: DeviceActive, AccessExpiresAt: &future}
	}
	for _, tt := range []struct {
		name string
		mut  func(*CascadeInput)
		want string
	}{
		{"OK/Usable", func(*CascadeInput) {}, ""},
		{"OK/LoginSessionWithoutLicense", func(in *CascadeInput) { in.License = nil }, ""},
		{"OK/RefreshSkipsAccessExpiry", func(in *CascadeInput) { in.AccessExpiresAt = nil }, ""},
		{"OK/InactiveLicense", func(in *CascadeInput) { in.License.Status = LicenseInactive }, ""},
		{"AppDisabled", func(in *CascadeInput) { in.AppStatus = AppDisabled }, ReasonAppDisabled},
		{"LicenseRevoked", func(in *CascadeInput) { in.License.Status = LicenseRevoked }, ReasonLicenseRevoked},
		{"LicenseBanned", func(in *CascadeInput) { in.License.Status = LicenseBanned }, ReasonLicenseBanned},
		{"LicenseSuspended", func(in *CascadeInput) { in.License.Status = LicenseSuspended }, ReasonLicenseSuspended},
		{"LicenseExpired", func(in *CascadeInput) { in.License.ExpiresAt = &past }, ReasonLicenseExpired},
		{"UserBanned", func(in *CascadeInput) { in.UserStatus = UserBanned }, ReasonUserBanned},
		{"UserDisabled", func(in *CascadeInput) { in.UserStatus = UserDisabled }, ReasonUserDisabled},
		{"DeviceBlocked", func(in *CascadeInput) { in.DeviceStatus = DeviceBlocked }, ReasonDeviceBlocked},
		{"SessionRevoked", func(in *CascadeInput) { in.Revoked = true }, ReasonSessionRevoked},
		{"TokenExpired", func(in *CascadeInput) { in.AccessExpiresAt = &now }, ReasonTokenExpired},
		// The first reason in design.md §5's order is the root cause.
		{"AppBeforeLicense", func(in *CascadeInput) { in.AppStatus = AppDisabled; in.License.Status = LicenseBanned }, ReasonAppDisabled},
		{"LicenseBeforeUser", func(in *CascadeInput) { in.License.Status = LicenseSuspended; in.UserStatus = UserBanned }, ReasonLicenseSuspended},
		{"UserBeforeDevice", func(in *CascadeInput) { in.UserStatus = UserDisabled; in.DeviceStatus = DeviceBlocked }, ReasonUserDisabled},
		{"DeviceBeforeSession", func(in *CascadeInput) { in.DeviceStatus = DeviceBlocked; in.Revoked = true }, ReasonDeviceBlocked},
		{"SessionBeforeExpiry", func(in *CascadeInput) { in.Revoked = true; in.AccessExpiresAt = &past }, ReasonSessionRevoked},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := usable()
			tt.mut(&in)
			if got := Cascade(in, now); got != tt.want {
				t.Fatalf("Cascade = %q, want %q", got, tt.want)
			}
			if Explain(tt.want) == tt.want {
				t.Fatalf("Explain(%q) says nothing more than the code", tt.want)
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

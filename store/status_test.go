package store

import (
	"testing"
	"time"
)

func TestLicenseSetStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	for _, tt := range []struct {
		name      string
		status    string
		activated bool
		expires   *time.Time
		to        string
		code      string // "" for success
		event     string // "" when nothing changes
		wantTo    string
		revoke    bool
	}{
		{"OK/Suspend", LicenseActive, true, nil, LicenseSuspended, "", "license.suspended", LicenseSuspended, true},
		{"OK/Revoke", LicenseInactive, false, nil, LicenseRevoked, "", "license.revoked", LicenseRevoked, true},
		{"OK/Ban", LicenseSuspended, true, &future, LicenseBanned, "", "license.banned", LicenseBanned, true},
		{"OK/ReinstateActivated", LicenseSuspended, true, nil, LicenseActive, "", "license.reinstated", LicenseActive, false},
		{"OK/ReinstateNeverActivated", LicenseSuspended, false, nil, LicenseActive, "", "license.reinstated", LicenseInactive, false},
		{"OK/SameStatusNoChange", LicenseSuspended, true, nil, LicenseSuspended, "", "", LicenseSuspended, false},
		{"OK/SuspendExpired", LicenseActive, true, &past, LicenseSuspended, "", "license.suspended", LicenseSuspended, true},
		{"ErrInvalidTransition/RevokedIsFinal", LicenseRevoked, true, nil, LicenseActive, ECodeTransition, "", "", false},
		{"ErrInvalidTransition/BannedIsFinal", LicenseBanned, true, nil, LicenseSuspended, ECodeTransition, "", "", false},
		{"ErrInvalidTransition/ReinstateActive", LicenseInactive, false, &past, LicenseActive, ECodeTransition, "", "", false},
		{"ErrValidation/Expired", LicenseActive, true, nil, LicenseExpired, ECodeValidation, "", "", false},
		{"ErrValidation/Inactive", LicenseActive, true, nil, LicenseInactive, ECodeValidation, "", "", false},
		{"ErrValidation/Unknown", LicenseActive, true, nil, "paused\x1b", ECodeValidation, "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &License{Status: tt.status, ExpiresAt: tt.expires}
			if tt.activated {
				l.ActivatedAt = &past
			}
			before := *l
			c, err := l.SetStatus(tt.to, now)
			if tt.code != "" {
				if ErrorCode(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				if l.Status != before.Status || !l.UpdatedAt.Equal(before.UpdatedAt) {
					t.Fatalf("a refused change modified the license: %+v", l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Event != tt.event || c.Revoke != tt.revoke {
				t.Fatalf("change = %+v, want event %q revoke %v", c, tt.event, tt.revoke)
			}
			if l.Status != tt.wantTo {
				t.Fatalf("status %s, want %s", l.Status, tt.wantTo)
			}
			if tt.event != "" && (c.To != tt.wantTo || c.From != before.EffectiveStatus(now) || !l.UpdatedAt.Equal(now)) {
				t.Fatalf("change %+v, updated %v", c, l.UpdatedAt)
			}
		})
	}
}

func TestUserAndDeviceSetStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name         string
		set          func() (StatusChange, error)
		code, event  string
		revoke       bool
		wantUnchange bool
	}{
		{"OK/BanUser", func() (StatusChange, error) { return (&EndUser{Status: UserActive}).SetStatus(UserBanned, now) }, "", "user.banned", true, false},
		{"OK/DisableBanned", func() (StatusChange, error) { return (&EndUser{Status: UserBanned}).SetStatus(UserDisabled, now) }, "", "user.disabled", true, false},
		{"OK/ReinstateUser", func() (StatusChange, error) { return (&EndUser{Status: UserBanned}).SetStatus(UserActive, now) }, "", "user.reinstated", false, false},
		{"OK/UserSame", func() (StatusChange, error) { return (&EndUser{Status: UserActive}).SetStatus(UserActive, now) }, "", "", false, true},
		{"ErrValidation/UserStatus", func() (StatusChange, error) { return (&EndUser{Status: UserActive}).SetStatus(DeviceBlocked, now) }, ECodeValidation, "", false, false},
		{"OK/BlockDevice", func() (StatusChange, error) { return (&Device{Status: DeviceActive}).SetStatus(DeviceBlocked) }, "", "device.blocked", true, false},
		{"OK/UnblockDevice", func() (StatusChange, error) { return (&Device{Status: DeviceBlocked}).SetStatus(DeviceActive) }, "", "device.unblocked", false, false},
		{"ErrValidation/DeviceStatus", func() (StatusChange, error) { return (&Device{Status: DeviceActive}).SetStatus(UserBanned) }, ECodeValidation, "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.set()
			if ErrorCode(err) != tt.code && !(tt.code == "" && err == nil) {
				t.Fatalf("err = %v, want %q", err, tt.code)
			}
			if c.Event != tt.event || c.Revoke != tt.revoke {
				t.Fatalf("change %+v, want event %q revoke %v", c, tt.event, tt.revoke)
			}
		})
	}
}

func TestStatusRuleMessages(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"LicenseCheck", LicenseStatus.Check("x"), "status must be one of active, suspended, revoked, banned"},
		{"LicenseFilter", LicenseStatus.CheckFilter("x"), "status must be one of inactive, active, expired, suspended, revoked, banned"},
		{"UserCheck", UserStatus.Check("x"), "status must be one of active, banned, disabled"},
		{"DeviceFilter", DeviceStatus.CheckFilter("x"), "status must be active or blocked"},
		{"AppCheck", AppStatus.Check("x"), "status must be active or disabled"},
	} {
		t.Run("ErrValidation/"+tt.name, func(t *testing.T) {
			e := AsError(tt.err)
			if e == nil || e.Code != ECodeValidation || e.Field != "status" || e.Message != tt.want {
				t.Fatalf("got %v, want %q", tt.err, tt.want)
			}
		})
	}
	t.Run("OK/EmptyFilter", func(t *testing.T) {
		for _, r := range []*StatusRule{LicenseStatus, UserStatus, DeviceStatus, AppStatus} {
			if err := r.CheckFilter(""); err != nil {
				t.Fatal(err)
			}
			for _, s := range r.Listed() {
				if err := r.CheckFilter(s); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

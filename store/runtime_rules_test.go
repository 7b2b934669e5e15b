package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func TestRuntimeRules(t *testing.T) {
	lic := &License{ID: NewID(), UserID: "u1", DeviceResetsRemaining: 1}
	plan := &Plan{MaxDevices: 2}
	trial := &Plan{MaxDevices: 2, IsTrial: true}
	bound := &Device{ID: "d1", Status: DeviceActive}
	free := &Device{ID: "d2", Status: DeviceActive}
	blocked := &Device{ID: "d1", Status: DeviceBlocked}
	usedTrial := &Device{ID: "d3", Status: DeviceActive, TrialLicenseID: NewID()}
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
		{"OK/ResetLeft", func() error { return lic.CheckResetLeft(plan, time.Now()) }, "", ""},
		{"ErrResetLimitReached", func() error { return (&License{}).CheckResetLeft(plan, time.Now()) }, ECodeResetLimit, "the license has no device resets left"},
		{"ErrResetLimitReached/Window", func() error {
			now := time.Now()
			l := &License{ResetTimes: []time.Time{now.Add(-time.Hour)}}
			err := l.CheckResetLeft(&Plan{DeviceResetLimit: 1, DeviceResetWindowDays: 1}, now)
			if e := AsError(err); e == nil || e.RetryAfter != 23*3600 {
				return fmt.Errorf("retry after %+v, want 23 h", e)
			}
			return err
		}, ECodeResetLimit, "the license has no device resets left in its reset window"},
		{"ErrDeviceBlocked/Bind", func() error { return CheckBind(lic, plan, blocked, true, 1) }, ECodeDeviceBlocked, "the device is blocked"},
		{"ErrDeviceLimitReached", func() error { return CheckBind(lic, plan, free, false, 2) }, ECodeDeviceLimit, "the license is bound to its maximum of 2 devices"},
		{"ErrDeviceLimitReached/NewDevice", func() error { return CheckBind(lic, plan, nil, false, 2) }, ECodeDeviceLimit, "the license is bound to its maximum of 2 devices"},
		{"ErrTrialAlreadyUsed", func() error { return CheckBind(lic, trial, usedTrial, false, 1) }, ECodeTrialUsed, "this device already used a trial of this application"},
		{"OK/BoundOnFullLicense", func() error { return CheckBind(lic, plan, bound, true, 2) }, "", ""},
		{"OK/TrialOfThisLicense", func() error {
			return CheckBind(lic, trial, &Device{ID: "d4", TrialLicenseID: lic.ID}, false, 1)
		}, "", ""},
		{"OK/NewDevice", func() error { return CheckBind(lic, trial, nil, false, 1) }, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if ErrorCode(err) != tt.code || (err != nil && ErrorMessage(err) != tt.msg) {
				t.Fatalf("got %v, want %s: %q", err, tt.code, tt.msg)
			}
		})
	}
}

// TestActivationRecords: what an activation writes on the license and the
// device, once and then again.
func TestActivationRecords(t *testing.T) {
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	days := 30
	plan := &Plan{IsTrial: true, DurationDays: &days}
	l := &License{ID: NewID(), Status: LicenseInactive}
	if !l.RecordActivation(plan, "u1", now) || l.Status != LicenseActive || l.ActivatedAt == nil || !l.ActivatedAt.Equal(now) ||
		l.ExpiresAt == nil || !l.ExpiresAt.Equal(ExpiresAfter(now, days)) || l.UserID != "u1" {
		t.Fatalf("first activation: %+v", l)
	}
	if l.RecordActivation(plan, "u2", now.Add(time.Hour)) || l.UserID != "u1" || !l.ActivatedAt.Equal(now) {
		t.Fatalf("second activation changed the license: %+v", l)
	}
	shared := make([]string, 1, 4) // room to append in place, which a shared copy must not see
	shared[0] = "other"
	d := &Device{LicenseIDs: shared}
	d.RecordBinding(l, plan, "u1", now)
	if len(d.LicenseIDs) != 2 || d.LicenseIDs[1] != l.ID || shared[:2][1] != "" || d.TrialLicenseID != l.ID || d.UserID != "u1" ||
		d.LastSeenAt == nil || !d.LastSeenAt.Equal(now) {
		t.Fatalf("bound device: %+v", d)
	}
	d.RecordBinding(&License{ID: NewID()}, plan, "u2", now)
	if d.TrialLicenseID != l.ID || d.UserID != "u1" {
		t.Fatalf("a second trial or owner replaced the first: %+v", d)
	}
}

// TestSignAccess: the claims of an access token, its subject and expiry.
func TestSignAccess(t *testing.T) {
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	var got AccessClaims
	o := RuntimeOptions{Issuer: "iss", AccessTTL: time.Minute, Signer: func(env *Environment, c AccessClaims) (string, error) {
		got = c
		return env.Name, nil
	}}
	ra := &RuntimeApp{App: &Application{ID: "app"}, Env: &Environment{Name: EnvProduction}}
	tok, exp, err := o.SignAccess(now, ra, SessionSubject{LicenseID: "lic", DeviceID: "dev", Entitlements: []string{"e"}}, "sid", "jti")
	if err != nil || tok != EnvProduction || !exp.Equal(now.Add(time.Minute)) || got.Subject != "lic" || got.Roles == nil ||
		got.Audience != "app" || got.SessionID != "sid" || got.ID != "jti" || got.Issuer != "iss" || !got.ExpiresAt.Equal(exp) {
		t.Fatalf("SignAccess = %q, %v, %v; claims %+v", tok, exp, err, got)
	}
	if _, _, err := o.SignAccess(now, ra, SessionSubject{LicenseID: "lic", UserID: "user"}, "sid", "jti"); err != nil || got.Subject != "user" {
		t.Fatalf("a user's session: subject %q, %v", got.Subject, err)
	}
}

// TestKeySet: sorted, each key once, and [] rather than null when empty.
func TestKeySet(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []string
		want string
	}{
		{"OKNil", nil, `[]`},
		{"OKEmpty", []string{}, `[]`},
		{"OKOne", []string{"pro"}, `["pro"]`},
		{"OKSortedOnce", []string{"pro", "export", "pro", "api", "export"}, `["api","export","pro"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(KeySet(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("KeySet(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestRefreshExpiries: the refresh token idles out before the session's
// absolute end, and never outlives it.
func TestRefreshExpiries(t *testing.T) {
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, tt := range []struct {
		name           string
		idle, absolute time.Duration
		wantRefresh    time.Duration
	}{
		{"OKIdleFirst", time.Hour, 24 * time.Hour, time.Hour},
		{"OKCappedByAbsolute", 48 * time.Hour, 24 * time.Hour, 24 * time.Hour},
		{"OKEqual", time.Hour, time.Hour, time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refresh, absolute := RuntimeOptions{RefreshIdleTTL: tt.idle, RefreshAbsoluteTTL: tt.absolute}.RefreshExpiries(now)
			if !refresh.Equal(now.Add(tt.wantRefresh)) || !absolute.Equal(now.Add(tt.absolute)) {
				t.Errorf("got %s, %s; want %s, %s", refresh, absolute, now.Add(tt.wantRefresh), now.Add(tt.absolute))
			}
		})
	}
}

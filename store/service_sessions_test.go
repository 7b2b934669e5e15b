package store

import (
	"slices"
	"testing"
	"time"
)

func TestSessionRotated(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name        string
		retired     []string
		absolute    time.Time
		wantRetired []string
		wantRefresh time.Time
	}{
		{"OK/FirstRotation", nil, now.Add(30 * 24 * time.Hour), []string{"cur"}, now.Add(time.Hour)},
		{"OK/BelowTheBound", []string{"a", "b"}, now.Add(30 * 24 * time.Hour), []string{"a", "b", "cur"}, now.Add(time.Hour)},
		{"OK/OldestForgotten", []string{"a", "b", "c", "d"}, now.Add(30 * 24 * time.Hour), []string{"b", "c", "d", "cur"}, now.Add(time.Hour)},
		{"OK/IdleClampedToAbsolute", nil, now.Add(time.Minute), []string{"cur"}, now.Add(time.Minute)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prev := &Session{ID: "s", RefreshHash: "cur", AccessHash: "acc", RetiredRefresh: slices.Clone(tt.retired), AbsoluteExpiresAt: tt.absolute}
			next := prev.Rotated("acc2", "ref2", now.Add(15*time.Minute), now, time.Hour)
			if !slices.Equal(next.RetiredRefresh, tt.wantRetired) || next.RefreshHash != "ref2" || next.AccessHash != "acc2" ||
				!next.AccessExpiresAt.Equal(now.Add(15*time.Minute)) || !next.RefreshExpiresAt.Equal(tt.wantRefresh) ||
				next.RotatedAt == nil || !next.RotatedAt.Equal(now) {
				t.Fatalf("Rotated = %+v; want retired %v, refresh expiry %v", next, tt.wantRetired, tt.wantRefresh)
			}
			if prev.RefreshHash != "cur" || !slices.Equal(prev.RetiredRefresh, tt.retired) || prev.RotatedAt != nil {
				t.Fatalf("Rotated modified the session it was called on: %+v", prev)
			}
		})
	}
}

func TestSessionRotatedJustNow(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	for _, tt := range []struct {
		name  string
		s     Session
		hash  string
		grace time.Duration
		want  bool
	}{
		{"OK/LastRetiredWithinGrace", Session{RetiredRefresh: []string{"a", "b"}, RotatedAt: at(-time.Second)}, "b", 5 * time.Second, true},
		{"Reuse/GraceOver", Session{RetiredRefresh: []string{"a", "b"}, RotatedAt: at(-5 * time.Second)}, "b", 5 * time.Second, false},
		{"Reuse/RetiredEarlier", Session{RetiredRefresh: []string{"a", "b"}, RotatedAt: at(-time.Second)}, "a", 5 * time.Second, false},
		{"Reuse/NoGrace", Session{RetiredRefresh: []string{"b"}, RotatedAt: at(0)}, "b", 0, false},
		{"Reuse/Revoked", Session{RetiredRefresh: []string{"b"}, RotatedAt: at(-time.Second), RevokedAt: at(0)}, "b", 5 * time.Second, false},
		{"Reuse/NeverRotated", Session{}, "b", 5 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.RotatedJustNow(tt.hash, now, tt.grace); got != tt.want {
				t.Fatalf("RotatedJustNow(%q) = %v; want %v", tt.hash, got, tt.want)
			}
		})
	}
}

func TestSessionViewReason(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ra := &RuntimeApp{App: &Application{ID: "app", Status: AppActive}, Env: &Environment{ID: "env"}}
	lic := &License{ID: "lic", Status: LicenseActive}
	dev := &Device{ID: "dev", Status: DeviceActive}
	user := &EndUser{ID: "user", Status: UserActive}
	live := func(mod func(*Session)) *Session {
		s := &Session{ID: "s", AppID: "app", EnvID: "env", LicenseID: "lic", DeviceID: "dev", AccessExpiresAt: now.Add(time.Minute)}
		if mod != nil {
			mod(s)
		}
		return s
	}
	revoked := now.Add(-time.Hour)
	for _, tt := range []struct {
		name        string
		v           SessionView
		checkExpiry bool
		want        string
	}{
		{"OK/LicenseSession", SessionView{Session: live(nil), License: lic, Device: dev}, true, ""},
		{"OK/LoginSession", SessionView{Session: live(func(s *Session) { s.LicenseID, s.UserID = "", "user" }), User: user, Device: dev}, true, ""},
		{"Invalid/NoSession", SessionView{}, true, ReasonTokenInvalid},
		{"Invalid/OtherApplication", SessionView{Session: live(func(s *Session) { s.AppID = "other" }), License: lic, Device: dev}, true, ReasonTokenInvalid},
		{"Invalid/OtherEnvironment", SessionView{Session: live(func(s *Session) { s.EnvID = "other" }), License: lic, Device: dev}, true, ReasonTokenInvalid},
		{"Invalid/LicenseGone", SessionView{Session: live(nil), Device: dev}, true, ReasonTokenInvalid},
		{"Invalid/UserGone", SessionView{Session: live(func(s *Session) { s.UserID = "user" }), License: lic, Device: dev}, true, ReasonTokenInvalid},
		{"Invalid/DeviceGone", SessionView{Session: live(nil), License: lic}, true, ReasonTokenInvalid},
		{"Cascade/BeforeRevocation", SessionView{Session: live(func(s *Session) { s.RevokedAt = &revoked }), License: &License{ID: "lic", Status: LicenseSuspended}, Device: dev}, true, ReasonLicenseSuspended},
		{"Revoked", SessionView{Session: live(func(s *Session) { s.RevokedAt = &revoked }), License: lic, Device: dev}, true, ReasonSessionRevoked},
		{"Expired", SessionView{Session: live(func(s *Session) { s.AccessExpiresAt = now }), License: lic, Device: dev}, true, ReasonTokenExpired},
		{"OK/ExpiryNotChecked", SessionView{Session: live(func(s *Session) { s.AccessExpiresAt = now }), License: lic, Device: dev}, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.Reason(ra, now, tt.checkExpiry); got != tt.want {
				t.Fatalf("Reason = %q; want %q", got, tt.want)
			}
		})
	}
}

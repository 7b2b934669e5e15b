package store

import (
	"testing"
	"time"
)

// TestRulesBothStoresShare drives the rules the two stores used to write
// each on its own, now written once here.
func TestRulesBothStoresShare(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	t.Run("Lapsed", func(t *testing.T) {
		for _, c := range []struct {
			status  string
			expires *time.Time
			want    bool
		}{
			{LicenseActive, &past, true},
			{LicenseInactive, &now, true}, // expires_at itself has passed
			{LicenseActive, &future, false},
			{LicenseActive, nil, false},
			{LicenseExpired, &past, false},
			{LicenseSuspended, &past, false},
			{LicenseRevoked, &past, false},
		} {
			l := License{Status: c.status, ExpiresAt: c.expires}
			if got := l.Lapsed(now); got != c.want {
				t.Errorf("%s expiring %v: Lapsed = %v, want %v", c.status, c.expires, got, c.want)
			}
		}
	})
	t.Run("CountsAgainstTier", func(t *testing.T) {
		want := map[string]bool{LicenseInactive: true, LicenseActive: true, LicenseExpired: true, LicenseSuspended: true,
			LicenseRevoked: false, LicenseBanned: false}
		for _, st := range LicenseStatus.Listed() {
			if got := CountsAgainstTier(st); got != want[st] {
				t.Errorf("CountsAgainstTier(%s) = %v, want %v", st, got, want[st])
			}
		}
	})
	t.Run("EndpointCap", func(t *testing.T) {
		c := Claim{PerEndpoint: 4}
		if got := c.EndpointCap(false); got != 4 {
			t.Errorf("cap = %d, want 4", got)
		}
		if got := c.EndpointCap(true); got != 1 {
			t.Errorf("cap after a timeout = %d, want 1", got)
		}
		if got := (Claim{}).EndpointCap(true); got != 0 {
			t.Errorf("cap of a claim bounding nothing after a timeout = %d, want 0", got)
		}
	})
	t.Run("TierIn", func(t *testing.T) {
		p := &BillingPolicy{Tiers: []Tier{{Key: "pro", Name: "Pro"}, {Key: "free", Name: "Free"}}}
		for plan, want := range map[string]string{"": "free", "pro": "pro", "gone": "free"} {
			if got := (SubscriptionState{Plan: plan}).TierIn(p).Key; got != want {
				t.Errorf("plan %q: tier %s, want %s", plan, got, want)
			}
		}
	})
	t.Run("ErrConflictProfileComplete", func(t *testing.T) {
		m := &Member{}
		if err := m.CheckProfileOpen(); err != nil {
			t.Fatalf("open profile: %v", err)
		}
		m.CompleteProfile(NewID(), ProfileInput{FirstName: "Ada"}, now)
		if got := ErrorCode(m.CheckProfileOpen()); got != ECodeConflict {
			t.Errorf("completed profile: code %q, want %q", got, ECodeConflict)
		}
		if m.Role != RoleOwner || m.FirstName != "Ada" || !m.UpdatedAt.Equal(now) {
			t.Errorf("completed member = %+v", m)
		}
	})
	t.Run("MaxEndpoints", func(t *testing.T) {
		if got := (Policies{}).MaxEndpoints(); got != DefaultMaxEndpoints {
			t.Errorf("default = %d, want %d", got, DefaultMaxEndpoints)
		}
		if got := (Policies{MaxWebhookEndpoints: 3}).MaxEndpoints(); got != 3 {
			t.Errorf("configured = %d, want 3", got)
		}
	})
}

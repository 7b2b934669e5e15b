package store

import "testing"

func TestCountRules(t *testing.T) {
	tier := &Tier{Name: "Free", MaxApplications: 1, MaxLicenses: 3, MaxDashboardMembers: Unlimited}
	for _, tt := range []struct {
		name      string
		check     func() error
		code, msg string
	}{
		{"OK/RoomLeft", func() error { return tier.CheckRoom(ResLicenses, 1, 2) }, "", ""},
		{"OK/Unlimited", func() error { return tier.CheckRoom(ResMembers, 1000, 1) }, "", ""},
		{"ErrPlanLimitReached/Applications", func() error { return tier.CheckRoom(ResApplications, 1, 1) }, ECodePlanLimit, "the Free plan allows 1 applications and the organization has 1"},
		{"ErrPlanLimitReached/Licenses", func() error { return tier.CheckRoom(ResLicenses, 1, 3) }, ECodePlanLimit, "the Free plan allows 3 active licenses and the organization has 1"},
		{"ErrPlanLimitReached/Members", func() error { return (&Tier{Name: "Solo", MaxDashboardMembers: 1}).CheckRoom(ResMembers, 1, 1) }, ECodePlanLimit, "the Solo plan allows 1 dashboard members and the organization has 1"},
		{"OK/OwnersLeft", func() error { return CheckOwnersLeft(2) }, "", ""},
		{"ErrLastOwner", func() error { return CheckOwnersLeft(1) }, ECodeLastOwner, "an organization must keep at least one owner"},
		{"OK/PlanUnused", func() error { return CheckPlanUnused(0) }, "", ""},
		{"ErrPlanInUse", func() error { return CheckPlanUnused(2) }, ECodePlanInUse, "2 inactive, active or suspended licenses use this plan"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if ErrorCode(err) != tt.code || (err != nil && ErrorMessage(err) != tt.msg) {
				t.Fatalf("got %v, want %s: %q", err, tt.code, tt.msg)
			}
		})
	}
}

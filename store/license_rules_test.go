package store_test

import (
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

func TestLicenseRenew(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ahead, passed := now.Add(10*24*time.Hour), now.Add(-3*24*time.Hour)
	days := func(n int) *int { return &n }
	at := func(t time.Time) *time.Time { return &t }
	monthly := &store.Plan{DurationDays: days(30)}
	cases := []struct {
		name             string
		l                store.License
		plan             *store.Plan
		in               store.RenewInput
		wantExp, wantMnt *time.Time
		wantStatus       string
		code, field      string
	}{
		{name: "OK/FromExpiryWhenAhead", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(5)},
			wantExp: at(ahead.Add(5 * 24 * time.Hour)), wantStatus: store.LicenseActive},
		{name: "OK/FromNowWhenPassed", l: store.License{Status: store.LicenseActive, ExpiresAt: at(passed), ActivatedAt: at(passed)}, in: store.RenewInput{Days: days(5)},
			wantExp: at(now.Add(5 * 24 * time.Hour)), wantStatus: store.LicenseActive},
		{name: "OK/StoredExpiredActivatedIsActive", l: store.License{Status: store.LicenseExpired, ExpiresAt: at(passed), ActivatedAt: at(passed)}, in: store.RenewInput{Days: days(1)},
			wantExp: at(now.Add(24 * time.Hour)), wantStatus: store.LicenseActive},
		{name: "OK/StoredExpiredNeverActivatedIsInactive", l: store.License{Status: store.LicenseExpired, ExpiresAt: at(passed)}, in: store.RenewInput{Days: days(1)},
			wantExp: at(now.Add(24 * time.Hour)), wantStatus: store.LicenseInactive},
		{name: "OK/SuspendedStaysSuspended", l: store.License{Status: store.LicenseSuspended, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(1)},
			wantExp: at(ahead.Add(24 * time.Hour)), wantStatus: store.LicenseSuspended},
		{name: "OK/DefaultsToPlanDuration", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, plan: monthly,
			wantExp: at(ahead.Add(30 * 24 * time.Hour)), wantStatus: store.LicenseActive},
		{name: "OK/MaintenanceOnlyOnPerpetual", l: store.License{Status: store.LicenseActive, MaintenanceExpiresAt: at(passed)}, plan: monthly, in: store.RenewInput{MaintenanceDays: days(365)},
			wantMnt: at(now.Add(365 * 24 * time.Hour)), wantStatus: store.LicenseActive},
		{name: "ErrValidation/NoDaysNoDuration", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, plan: &store.Plan{},
			code: store.ECodeValidation, field: "days"},
		{name: "ErrValidation/DaysZero", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(0)},
			code: store.ECodeValidation, field: "days"},
		{name: "ErrValidation/DaysTooMany", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(36_501)},
			code: store.ECodeValidation, field: "days"},
		{name: "ErrValidation/MaintenanceDaysNegative", l: store.License{Status: store.LicenseActive, MaintenanceExpiresAt: at(ahead)}, in: store.RenewInput{MaintenanceDays: days(-1)},
			code: store.ECodeValidation, field: "maintenance_days"},
		{name: "ErrValidation/PastYear9999", l: store.License{Status: store.LicenseActive, ExpiresAt: at(time.Date(9990, 1, 1, 0, 0, 0, 0, time.UTC))}, in: store.RenewInput{Days: days(36_500)},
			code: store.ECodeValidation, field: "expires_at"},
		{name: "ErrTransition/Perpetual", l: store.License{Status: store.LicenseActive}, in: store.RenewInput{Days: days(5)}, code: store.ECodeTransition},
		{name: "ErrTransition/UnlimitedMaintenance", l: store.License{Status: store.LicenseActive, ExpiresAt: at(ahead)}, in: store.RenewInput{MaintenanceDays: days(5)}, code: store.ECodeTransition},
		{name: "ErrTransition/Revoked", l: store.License{Status: store.LicenseRevoked, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(5)}, code: store.ECodeTransition},
		{name: "ErrTransition/Banned", l: store.License{Status: store.LicenseBanned, ExpiresAt: at(ahead)}, in: store.RenewInput{Days: days(5)}, code: store.ECodeTransition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := c.l
			ev, err := l.Renew(c.in, c.plan, now)
			if c.code != "" {
				if store.ErrorCode(err) != c.code || (c.field != "" && store.AsError(err).Field != c.field) {
					t.Fatalf("Renew = %v; want %s naming %q", err, c.code, c.field)
				}
				if l.ExpiresAt != c.l.ExpiresAt || l.Status != c.l.Status || l.MaintenanceExpiresAt != c.l.MaintenanceExpiresAt {
					t.Fatalf("a refused renewal changed the license: %+v", l)
				}
				return
			}
			if err != nil || ev.Event != store.EventLicenseRenewed {
				t.Fatalf("Renew = %+v, %v", ev, err)
			}
			if !sameTime(l.ExpiresAt, c.wantExp) && c.wantExp != nil || c.wantExp == nil && !sameTime(l.ExpiresAt, c.l.ExpiresAt) {
				t.Fatalf("expires_at = %v; want %v", l.ExpiresAt, c.wantExp)
			}
			if c.wantMnt != nil && !sameTime(l.MaintenanceExpiresAt, c.wantMnt) {
				t.Fatalf("maintenance_expires_at = %v; want %v", l.MaintenanceExpiresAt, c.wantMnt)
			}
			if l.Status != c.wantStatus || !l.UpdatedAt.Equal(now) {
				t.Fatalf("status %s, updated %v; want %s at now", l.Status, l.UpdatedAt, c.wantStatus)
			}
			if c.wantExp != nil && ev.Metadata["expires_at"] != c.wantExp.Format(time.RFC3339Nano) {
				t.Fatalf("metadata = %v", ev.Metadata)
			}
		})
	}
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func TestLicenseChangePlan(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lifetime := &store.Plan{ID: "old", Name: "Old", MaxDevices: 5, DeviceResetLimit: 3}
	cases := []struct {
		name          string
		l             store.License
		from, to      *store.Plan
		wantRemaining int
		code          string
	}{
		{name: "OK/ResetsSpentCarryOver", l: store.License{PlanID: "old", Status: store.LicenseActive, DevicesCount: 2, DeviceResetsRemaining: 1},
			from: lifetime, to: &store.Plan{ID: "new", Name: "New", MaxDevices: 2, DeviceResetLimit: 5}, wantRemaining: 3},
		{name: "OK/NeverBelowZero", l: store.License{PlanID: "old", Status: store.LicenseActive, DeviceResetsRemaining: 0},
			from: lifetime, to: &store.Plan{ID: "new", MaxDevices: 1, DeviceResetLimit: 1}, wantRemaining: 0},
		{name: "OK/WindowCountsRecentResets", l: store.License{PlanID: "old", Status: store.LicenseActive,
			ResetTimes: []time.Time{now.Add(-40 * 24 * time.Hour), now.Add(-2 * 24 * time.Hour)}},
			from: &store.Plan{ID: "old", MaxDevices: 1, DeviceResetLimit: 9, DeviceResetWindowDays: 90},
			to:   &store.Plan{ID: "new", MaxDevices: 1, DeviceResetLimit: 4, DeviceResetWindowDays: 30}, wantRemaining: 3},
		{name: "ErrTooManyDevices", l: store.License{PlanID: "old", Status: store.LicenseActive, DevicesCount: 3},
			from: lifetime, to: &store.Plan{ID: "new", MaxDevices: 2}, code: store.ECodeTooManyDevices},
		{name: "ErrTransition/Revoked", l: store.License{PlanID: "old", Status: store.LicenseRevoked},
			from: lifetime, to: &store.Plan{ID: "new", MaxDevices: 2}, code: store.ECodeTransition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := c.l
			ev, err := l.ChangePlan(c.from, c.to, now)
			if c.code != "" {
				if store.ErrorCode(err) != c.code || l.PlanID != c.l.PlanID {
					t.Fatalf("ChangePlan = %v, plan %s; want %s and nothing changed", err, l.PlanID, c.code)
				}
				if c.code == store.ECodeTooManyDevices && !strings.Contains(err.Error(), "3 devices") {
					t.Fatalf("message %q names neither count", err)
				}
				return
			}
			if err != nil || ev.Event != store.EventLicensePlanChanged || l.PlanID != c.to.ID || l.DeviceResetsRemaining != c.wantRemaining {
				t.Fatalf("ChangePlan = %+v, %v; plan %s, remaining %d; want %s, %d", ev, err, l.PlanID, l.DeviceResetsRemaining, c.to.ID, c.wantRemaining)
			}
		})
	}
}

func TestLicenseSetDatesAndTransfer(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	past, ahead := now.Add(-time.Hour), now.Add(time.Hour)
	l := store.License{Status: store.LicenseExpired, ExpiresAt: &past, ActivatedAt: &past}
	ahead2 := &ahead
	ev, err := l.SetDates(store.LicenseUpdate{ExpiresAt: &ahead2}, now)
	if err != nil || ev == nil || ev.Event != store.EventLicenseUpdated || l.Status != store.LicenseActive {
		t.Fatalf("SetDates(ahead) = %+v, %v; status %s; want license.updated and active again", ev, err, l.Status)
	}
	if ev, err := l.SetDates(store.LicenseUpdate{ExpiresAt: &ahead2}, now); ev != nil || err != nil {
		t.Fatalf("SetDates(same) = %+v, %v; want no change", ev, err)
	}
	revoked := store.License{Status: store.LicenseRevoked}
	if _, err := revoked.SetDates(store.LicenseUpdate{ExpiresAt: &ahead2}, now); store.ErrorCode(err) != store.ECodeTransition {
		t.Fatalf("SetDates(revoked) = %v; want invalid_transition", err)
	}
	owned := store.License{Status: store.LicenseActive, UserID: "u1"}
	ev, err = owned.Transfer(&store.EndUser{ID: "u1", Email: "a@x.test"}, nil, now)
	if err != nil || owned.UserID != "" || ev.Metadata["user"] != nil || ev.Metadata["previous_user"] == nil {
		t.Fatalf("Transfer(unassign) = %+v, %v", ev, err)
	}
	for _, c := range []struct {
		name  string
		u     store.LicenseUpdate
		field string
	}{
		{"Empty", store.LicenseUpdate{}, "status"},
		{"BadStatus", store.LicenseUpdate{Status: strPtr("expired")}, "status"},
		{"BadPlan", store.LicenseUpdate{PlanID: strPtr("nope")}, "plan_id"},
		{"BadUser", store.LicenseUpdate{UserID: strPtr("nope")}, "user_id"},
	} {
		t.Run("ErrValidation/"+c.name, func(t *testing.T) {
			if err := c.u.Check(); store.ErrorCode(err) != store.ECodeValidation || store.AsError(err).Field != c.field {
				t.Fatalf("Check = %v; want validation_failed naming %s", err, c.field)
			}
		})
	}
	for _, c := range []struct {
		name string
		in   store.BulkRenewInput
	}{
		{"NoIDs", store.BulkRenewInput{Days: 1}},
		{"Twice", store.BulkRenewInput{LicenseIDs: []string{"0190d5a6-0000-7000-8000-000000000001", "0190d5a6-0000-7000-8000-000000000001"}, Days: 1}},
		{"TooMany", store.BulkRenewInput{LicenseIDs: make([]string, store.MaxBulkRenew+1), Days: 1}},
		{"DaysZero", store.BulkRenewInput{LicenseIDs: []string{"0190d5a6-0000-7000-8000-000000000001"}}},
	} {
		t.Run("ErrValidation/Bulk"+c.name, func(t *testing.T) {
			if err := c.in.Check(); store.ErrorCode(err) != store.ECodeValidation {
				t.Fatalf("Check = %v; want validation_failed", err)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

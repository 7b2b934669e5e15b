package store

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestNewPlan(t *testing.T) {
	t.Run("OK/Defaults", func(t *testing.T) {
		p, err := NewPlan(PlanInput{Name: ptr(" Pro ")})
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "Pro" || p.MaxDevices != DefaultMaxDevices || p.DeviceResetLimit != DefaultDeviceResetLimit || p.DurationDays != nil || p.IsTrial {
			t.Fatalf("plan %+v", p)
		}
	})
	ok := []struct {
		name string
		in   PlanInput
	}{
		{"DurationMin", PlanInput{DurationDays: ptr(ptr(MinDurationDays))}},
		{"DurationMax", PlanInput{DurationDays: ptr(ptr(MaxDurationDays))}},
		{"Perpetual", PlanInput{DurationDays: ptr[*int](nil)}},
		{"MaxDevicesMin", PlanInput{MaxDevices: ptr(MinMaxDevices)}},
		{"MaxDevicesMax", PlanInput{MaxDevices: ptr(MaxMaxDevices)}},
		{"ResetLimitZero", PlanInput{DeviceResetLimit: ptr(0)}},
		{"ResetLimitMax", PlanInput{DeviceResetLimit: ptr(MaxDeviceResetLimit)}},
		{"ExternalID", PlanInput{ExternalProductID: ptr(ptr(strings.Repeat("x", MaxExternalID)))}},
		{"PoliciesObject", PlanInput{PoliciesSet: true, Policies: json.RawMessage(`{"a":"\u001b"}`)}},
	}
	for _, tt := range ok {
		t.Run("OK/"+tt.name, func(t *testing.T) {
			tt.in.Name = ptr("Pro")
			if _, err := NewPlan(tt.in); err != nil {
				t.Fatal(err)
			}
		})
	}
	bad := []struct {
		name, field string
		in          PlanInput
	}{
		{"NoName", "name", PlanInput{}},
		{"NameEscape", "name", PlanInput{Name: ptr("Pro\x1b]0;x\x07")}},
		{"DurationZero", "duration_days", PlanInput{DurationDays: ptr(ptr(0))}},
		{"DurationOverflow", "duration_days", PlanInput{DurationDays: ptr(ptr(106_752))}},
		{"DurationAboveMax", "duration_days", PlanInput{DurationDays: ptr(ptr(MaxDurationDays + 1))}},
		{"MaxDevicesZero", "max_devices", PlanInput{MaxDevices: ptr(0)}},
		{"MaxDevicesAboveMax", "max_devices", PlanInput{MaxDevices: ptr(MaxMaxDevices + 1)}},
		{"ResetLimitNegative", "device_reset_limit", PlanInput{DeviceResetLimit: ptr(-1)}},
		{"ResetLimitAboveMax", "device_reset_limit", PlanInput{DeviceResetLimit: ptr(MaxDeviceResetLimit + 1)}},
		{"ExternalIDTooLong", "external_product_id", PlanInput{ExternalProductID: ptr(ptr(strings.Repeat("x", MaxExternalID+1)))}},
		{"ExternalIDControl", "external_product_id", PlanInput{ExternalProductID: ptr(ptr("sku\n1"))}},
		{"PoliciesArray", "policies", PlanInput{PoliciesSet: true, Policies: json.RawMessage(`[]`)}},
		{"TooManyEntitlements", "entitlement_ids", PlanInput{EntitlementIDs: ptr(make([]string, MaxPlanEntitlementIDs+1))}},
	}
	for _, tt := range bad {
		t.Run("ErrValidation/"+tt.name, func(t *testing.T) {
			if tt.name != "NoName" && tt.in.Name == nil {
				tt.in.Name = ptr("Pro")
			}
			_, err := NewPlan(tt.in)
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestPlanApplyLeavesPlanOnError(t *testing.T) {
	p := &Plan{Name: "Pro", MaxDevices: 3, DeviceResetLimit: 2}
	before := *p
	err := p.Apply(PlanInput{Name: ptr("Renamed"), MaxDevices: ptr(5), DurationDays: ptr(ptr(MaxDurationDays + 1))})
	wantInvalid(t, err, "duration_days")
	if p.Name != before.Name || p.MaxDevices != before.MaxDevices {
		t.Fatalf("a refused update changed the plan: %+v", p)
	}
	if !(PlanInput{}).Empty() || (PlanInput{IsTrial: ptr(true)}).Empty() {
		t.Fatal("Empty is wrong")
	}
}

func TestExpiresAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		days int
		want time.Time
	}{
		{"OK/OneDay", 1, now.Add(24 * time.Hour)},
		{"OK/Max", MaxDurationDays, now.Add(MaxDurationDays * 24 * time.Hour)},
		// A record written before the bound existed: clamped, never overflowed.
		{"OK/OldRecordClamped", 106_752, now.Add(MaxDurationDays * 24 * time.Hour)},
		{"OK/HugeClamped", 1 << 40, now.Add(MaxDurationDays * 24 * time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ExpiresAfter(now, tt.days)
			if !got.Equal(tt.want) || !got.After(now) {
				t.Fatalf("ExpiresAfter(%d) = %v, want %v", tt.days, got, tt.want)
			}
		})
	}
}

func TestCreateEntitlementInputCheck(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		in, err := CreateEntitlementInput{Key: "export.pdf", Name: " Export ", Description: ptr(" kept as written ")}.Check()
		if err != nil || in.Name != "Export" || *in.Description != " kept as written " {
			t.Fatalf("%+v, %v", in, err)
		}
	})
	for _, tt := range []struct {
		name, field string
		in          CreateEntitlementInput
	}{
		{"KeyEscape", "key", CreateEntitlementInput{Key: "export\x1b", Name: "Export"}},
		{"NameBidi", "name", CreateEntitlementInput{Key: "export", Name: "Ex\u202eport"}},
		{"DescriptionControl", "description", CreateEntitlementInput{Key: "export", Name: "Export", Description: ptr("a\x9bb")}},
		{"DescriptionTooLong", "description", CreateEntitlementInput{Key: "export", Name: "Export", Description: ptr(strings.Repeat("d", MaxDescription+1))}},
	} {
		t.Run("ErrValidation/"+tt.name, func(t *testing.T) {
			_, err := tt.in.Check()
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestPlanOfflineDays(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan Plan
		want int
	}{
		{"OKStored", Plan{ID: NewID(), MaxOfflineDays: 10}, 10},
		{"OKNeverOffline", Plan{ID: NewID(), MaxOfflineDays: 0}, 0},
		{"OKPlanGone", Plan{LeaseSeconds: DefaultLeaseSeconds}, DefaultOfflineDays},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.plan.OfflineDays(); got != tc.want {
				t.Fatalf("OfflineDays = %d, want %d", got, tc.want)
			}
		})
	}
}

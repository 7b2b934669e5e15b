package store

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Plan bounds of docs/design.md §6. MaxDurationDays also keeps every expiry
// computed from a plan far inside time.Duration's range (about 106,751 days).
const (
	MinDurationDays       = 1
	MaxDurationDays       = 36_500
	MinMaxDevices         = 1
	MaxMaxDevices         = 1_000_000
	MinDeviceResetLimit   = 0
	MaxDeviceResetLimit   = 10_000
	MaxPlanEntitlementIDs = 1000
	MinResetWindowDays    = 0
	MaxResetWindowDays    = 3_650
	MinOfflineDays        = 0
	MaxOfflineDays        = 365
	DefaultOfflineDays    = 30
)

// Apply validates the fields present in in and writes them into p; p is
// left unchanged when a field is invalid. Entitlement ids are only counted
// here: whether they name entitlements of the application is the backend's
// to check. Returns validation_failed naming the field.
func (p *Plan) Apply(in PlanInput) error {
	next := *p
	if in.Name != nil {
		name, err := CheckName("name", *in.Name)
		if err != nil {
			return err
		}
		next.Name = name
	}
	if in.IsTrial != nil {
		next.IsTrial = *in.IsTrial
	}
	if in.DurationDays != nil {
		d := *in.DurationDays
		if d != nil {
			if *d < MinDurationDays || *d > MaxDurationDays {
				return Invalid("duration_days", "duration_days must be between %d and %d, or null for a perpetual plan", MinDurationDays, MaxDurationDays)
			}
			v := *d
			d = &v
		}
		next.DurationDays = d
	}
	if in.MaintenanceDays != nil {
		d := *in.MaintenanceDays
		if d != nil {
			if *d < MinDurationDays || *d > MaxDurationDays {
				return Invalid("maintenance_days", "maintenance_days must be between %d and %d, or null for unlimited updates", MinDurationDays, MaxDurationDays)
			}
			v := *d
			d = &v
		}
		next.MaintenanceDays = d
	}
	if in.Rebind != nil {
		switch *in.Rebind {
		case RebindOff, RebindMost:
		default:
			return Invalid("rebind", "rebind must be %q or %q", RebindOff, RebindMost)
		}
		next.Rebind = *in.Rebind
	}
	if in.MaxDevices != nil {
		if v := *in.MaxDevices; v < MinMaxDevices || v > MaxMaxDevices {
			return Invalid("max_devices", "max_devices must be between %d and %d", MinMaxDevices, MaxMaxDevices)
		}
		next.MaxDevices = *in.MaxDevices
	}
	if in.DeviceResetLimit != nil {
		if v := *in.DeviceResetLimit; v < MinDeviceResetLimit || v > MaxDeviceResetLimit {
			return Invalid("device_reset_limit", "device_reset_limit must be between %d and %d", MinDeviceResetLimit, MaxDeviceResetLimit)
		}
		next.DeviceResetLimit = *in.DeviceResetLimit
	}
	if in.DeviceResetWindowDays != nil {
		if v := *in.DeviceResetWindowDays; v < MinResetWindowDays || v > MaxResetWindowDays {
			return Invalid("device_reset_window_days", "device_reset_window_days must be between %d and %d", MinResetWindowDays, MaxResetWindowDays)
		}
		next.DeviceResetWindowDays = *in.DeviceResetWindowDays
	}
	if in.MaxConcurrent != nil {
		next.MaxConcurrent = *in.MaxConcurrent
	}
	if in.MaxOfflineDays != nil {
		if v := *in.MaxOfflineDays; v < MinOfflineDays || v > MaxOfflineDays {
			return Invalid("max_offline_days", "max_offline_days must be between %d and %d", MinOfflineDays, MaxOfflineDays)
		}
		next.MaxOfflineDays = *in.MaxOfflineDays
	}
	if in.LeaseSeconds != nil {
		if v := *in.LeaseSeconds; v < MinLeaseSeconds || v > MaxLeaseSeconds {
			return Invalid("lease_seconds", "lease_seconds must be between %d and %d", MinLeaseSeconds, MaxLeaseSeconds)
		}
		next.LeaseSeconds = *in.LeaseSeconds
	}
	// max_concurrent is bounded by max_devices, whichever of them changed.
	if (in.MaxConcurrent != nil || in.MaxDevices != nil) && (next.MaxConcurrent < 0 || next.MaxConcurrent > next.MaxDevices) {
		return Invalid("max_concurrent", "max_concurrent must be 0 (no cap) or between 1 and max_devices (%d)", next.MaxDevices)
	}
	if in.ExternalProductID != nil {
		x := *in.ExternalProductID
		if x != nil {
			v, err := CheckText("external_product_id", *x, 0, MaxExternalID)
			if err != nil {
				return err
			}
			x = &v
		}
		next.ExternalProductID = x
	}
	if in.PoliciesSet {
		pol, err := CheckPolicies(in.Policies)
		if err != nil {
			return err
		}
		next.Policies = pol
	}
	if in.EntitlementIDs != nil && len(*in.EntitlementIDs) > MaxPlanEntitlementIDs {
		return Invalid("entitlement_ids", "at most %d entitlement_ids", MaxPlanEntitlementIDs)
	}
	*p = next
	return nil
}

// NewPlan is a plan with the defaults of docs/design.md §6 and in applied; in
// must name the plan. Returns validation_failed naming the field.
func NewPlan(in PlanInput) (*Plan, error) {
	if in.Name == nil {
		return nil, Invalid("name", "name is required")
	}
	p := &Plan{MaxDevices: DefaultMaxDevices, DeviceResetLimit: DefaultDeviceResetLimit, LeaseSeconds: DefaultLeaseSeconds, MaxOfflineDays: DefaultOfflineDays, Rebind: RebindMost, EntitlementIDs: []string{}}
	if err := p.Apply(in); err != nil {
		return nil, err
	}
	return p, nil
}

// The re-binding policies of a plan (docs/design.md §17).
const (
	// RebindOff: a new fingerprint always takes a seat of its own.
	RebindOff = "off"
	// RebindMost: a new fingerprint matching most of a bound device's
	// components takes that device's binding (ComponentsMatchMost).
	RebindMost = "most"
)

// RebindMode is the plan's re-binding policy; a plan stored before the
// field existed has the default, RebindMost.
func (p *Plan) RebindMode() string {
	if p.Rebind == "" {
		return RebindMost
	}
	return p.Rebind
}

// CheckPlanUnused refuses deleting a plan that n licenses still use
// (inactive, active or suspended ones). Returns plan_in_use.
func CheckPlanUnused(n int) error {
	if n > 0 {
		return Errorf(ECodePlanInUse, "%d inactive, active or suspended licenses use this plan", n)
	}
	return nil
}

// Empty reports whether in names no field at all: a PATCH that changes nothing.
func (in PlanInput) Empty() bool {
	return in.Name == nil && in.IsTrial == nil && in.DurationDays == nil && in.MaxDevices == nil && in.DeviceResetLimit == nil && in.DeviceResetWindowDays == nil &&
		in.MaxConcurrent == nil && in.LeaseSeconds == nil && in.MaxOfflineDays == nil && in.MaintenanceDays == nil && in.Rebind == nil &&
		in.ExternalProductID == nil && !in.PoliciesSet && in.EntitlementIDs == nil
}

// CheckPolicies accepts a JSON object of at most MaxPoliciesBytes (kept
// verbatim, trimmed) or null (nil).
func CheckPolicies(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, nil
	}
	if len(raw) > MaxPoliciesBytes {
		return nil, Invalid("policies", "policies must be at most %d bytes", MaxPoliciesBytes)
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, Invalid("policies", "policies must be a JSON object or null")
	}
	return append(json.RawMessage(nil), trimmed...), nil
}

// ExpiresAfter is the expiry of a license of a plan of days days first
// activated at activated. Days beyond MaxDurationDays (a record written
// before the bound existed) count as MaxDurationDays, so the sum never
// overflows and a license is never born expired.
func ExpiresAfter(activated time.Time, days int) time.Time {
	days = max(MinDurationDays, min(days, MaxDurationDays))
	return activated.Add(time.Duration(days) * 24 * time.Hour)
}

// Check validates an entitlement to create and returns it trimmed.
// Returns validation_failed naming the field.
func (in CreateEntitlementInput) Check() (CreateEntitlementInput, error) {
	if err := CheckKey("key", in.Key); err != nil {
		return in, err
	}
	name, err := CheckName("name", in.Name)
	if err != nil {
		return in, err
	}
	in.Name = name
	if in.Description != nil {
		// A description is kept as written, surrounding spaces included.
		if _, err := CheckText("description", *in.Description, 0, MaxDescription); err != nil {
			return in, err
		}
		if utf8.RuneCountInString(*in.Description) > MaxDescription {
			return in, Invalid("description", "description must be at most %d characters", MaxDescription)
		}
	}
	return in, nil
}

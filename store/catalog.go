package store

import (
	"context"
	"encoding/json"
	"time"
)

// Entitlement is a named feature of an application that plans and licenses grant.
type Entitlement struct {
	ID          string
	AppID       string
	Key         string
	Name        string
	Description *string
	CreatedAt   time.Time
}

// EntitlementRef is the short form of an entitlement inside plans and licenses.
type EntitlementRef struct {
	ID   string
	Key  string
	Name string
}

// CreateEntitlementInput creates an entitlement.
type CreateEntitlementInput struct {
	Key         string
	Name        string
	Description *string
}

// Plan bundles entitlements and device rules; licenses are generated for a plan.
type Plan struct {
	ID               string
	AppID            string
	Name             string
	IsTrial          bool
	DurationDays     *int
	MaxDevices       int
	DeviceResetLimit int
	// DeviceResetWindowDays bounds DeviceResetLimit to a rolling window of
	// that many days; 0 makes the limit hold for the license's life.
	DeviceResetWindowDays int
	// MaxConcurrent caps the devices of a license using it at once
	// (floating seats); 0 is no cap.
	MaxConcurrent int
	// LeaseSeconds is how long a seat lease lives without a heartbeat.
	LeaseSeconds int
	// MaxOfflineDays is the longest a machine file of the plan's licenses
	// lasts; 0 refuses machine files.
	MaxOfflineDays int
	// MaintenanceDays is how long after first activation a license of the
	// plan may take updates (docs/design.md §16); nil is unlimited.
	MaintenanceDays *int
	// Rebind is whether a new fingerprint with most of a bound device's
	// components takes that device's binding (docs/design.md §17):
	// RebindMost or RebindOff; "" (a plan stored before the field) reads
	// as RebindMost, see RebindMode.
	Rebind            string
	ExternalProductID *string
	Policies          json.RawMessage // verbatim JSON object, or nil
	EntitlementIDs    []string
	Entitlements      []EntitlementRef // resolved on reads
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// PlanInput creates a plan (fields nil take their defaults) or partially
// updates one (fields nil are left alone). Policies is set when
// PoliciesSet; a JSON null clears it.
type PlanInput struct {
	Name                  *string
	IsTrial               *bool
	DurationDays          **int
	MaxDevices            *int
	DeviceResetLimit      *int
	DeviceResetWindowDays *int
	MaxConcurrent         *int
	LeaseSeconds          *int
	MaxOfflineDays        *int
	MaintenanceDays       **int
	Rebind                *string
	ExternalProductID     **string
	Policies              json.RawMessage
	PoliciesSet           bool
	EntitlementIDs        *[]string
}

// Plan defaults of docs/design.md §6.
const (
	DefaultMaxDevices       = 1
	DefaultDeviceResetLimit = 3
	MaxPoliciesBytes        = 16 << 10
)

// Entitlements stores an application's entitlements.
type Entitlements interface {
	// ListEntitlements lists the application's entitlements, newest first.
	ListEntitlements(ctx context.Context, ref AppRef) ([]*Entitlement, error)
	// CreateEntitlement returns validation_failed, conflict (key taken), not_found.
	CreateEntitlement(ctx context.Context, ref AppRef, in CreateEntitlementInput) (*Entitlement, error)
	// DeleteEntitlement removes the entitlement from plans and licenses too.
	// Returns not_found.
	DeleteEntitlement(ctx context.Context, ref AppRef, id string) error
}

// Plans stores an application's plans.
type Plans interface {
	// ListPlans lists the application's plans with their entitlements, newest first.
	ListPlans(ctx context.Context, ref AppRef) ([]*Plan, error)
	// FindPlan returns not_found.
	FindPlan(ctx context.Context, ref AppRef, id string) (*Plan, error)
	// CreatePlan returns validation_failed (including unknown entitlement ids), not_found.
	CreatePlan(ctx context.Context, ref AppRef, in PlanInput) (*Plan, error)
	// UpdatePlan replaces the fields present; EntitlementIDs present replaces
	// the set. Returns validation_failed, not_found.
	UpdatePlan(ctx context.Context, ref AppRef, id string, in PlanInput) (*Plan, error)
	// DeletePlan returns not_found, plan_in_use when inactive, active or
	// suspended licenses use it.
	DeletePlan(ctx context.Context, ref AppRef, id string) error
}

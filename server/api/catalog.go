package api

import (
	"encoding/json"
	"time"
)

// CreateEntitlementRequest is the body of POST /applications/{id}/entitlements.
type CreateEntitlementRequest struct {
	Key         string  `json:"key"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
}

// EntitlementCreated answers entitlement creation.
type EntitlementCreated struct {
	EntitlementID string `json:"entitlement_id"`
}

// EntitlementItem is an entitlement in lists.
type EntitlementItem struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

// EntitlementRef is the short form of an entitlement inside plans and licenses.
type EntitlementRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

// PlanID answers plan creation and update.
type PlanID struct {
	PlanID string `json:"plan_id"`
}

// PlanItem is a plan in lists and in its detail read.
type PlanItem struct {
	ID                    string           `json:"id"`
	Name                  string           `json:"name"`
	IsTrial               bool             `json:"is_trial"`
	DurationDays          *int             `json:"duration_days"`
	MaxDevices            int              `json:"max_devices"`
	DeviceResetLimit      int              `json:"device_reset_limit"`
	DeviceResetWindowDays int              `json:"device_reset_window_days"`
	MaxConcurrent         int              `json:"max_concurrent"`
	LeaseSeconds          int              `json:"lease_seconds"`
	MaxOfflineDays        int              `json:"max_offline_days"`
	MaintenanceDays       *int             `json:"maintenance_days"` // null: updates never end
	Rebind                string           `json:"rebind"`
	ExternalProductID     *string          `json:"external_product_id"`
	Policies              json.RawMessage  `json:"policies" jsontype:"object,null"`
	Entitlements          []EntitlementRef `json:"entitlements"`
	CreatedAt             time.Time        `json:"created_at"`
	UpdatedAt             time.Time        `json:"updated_at"`
}

// PlanRequest is the body of POST and PATCH on a plan. The server reads it
// field by field (a PATCH changes only the fields present, and null clears
// duration_days, external_product_id and policies), so this type is the
// body's description rather than its decoder; the servertest transport
// holds the two together by validating every request the tests send.
// The tag nullable:"true" marks the fields whose null clears them; a null
// in any other field of a request is refused (server.refuseNulls).
type PlanRequest struct {
	Name             string `json:"name,omitempty"`
	IsTrial          bool   `json:"is_trial,omitempty"`
	DurationDays     *int   `json:"duration_days,omitempty" nullable:"true"`
	MaxDevices       int    `json:"max_devices,omitempty"`
	DeviceResetLimit int    `json:"device_reset_limit,omitempty"`
	// DeviceResetWindowDays counts the reset limit within a rolling window
	// of days; 0 counts it over the license's life.
	DeviceResetWindowDays int `json:"device_reset_window_days,omitempty"`
	// MaxConcurrent is the floating seats (0: no leases needed).
	MaxConcurrent int `json:"max_concurrent,omitempty"`
	// LeaseSeconds is how long a seat lease lives without a heartbeat.
	LeaseSeconds int `json:"lease_seconds,omitempty"`
	// MaxOfflineDays bounds a machine file's TTL (0: no offline use).
	MaxOfflineDays int `json:"max_offline_days,omitempty"`
	// MaintenanceDays is how long after first activation updates are
	// allowed (null: unlimited).
	MaintenanceDays *int `json:"maintenance_days,omitempty" nullable:"true"`
	// Rebind is whether a new fingerprint with most of a bound device's
	// components takes that device's binding: "most" (the default) or
	// "off".
	Rebind            string          `json:"rebind,omitempty"`
	ExternalProductID *string         `json:"external_product_id,omitempty" nullable:"true"`
	Policies          *map[string]any `json:"policies,omitempty" nullable:"true"` // an object, or null
	EntitlementIDs    []string        `json:"entitlement_ids,omitempty"`
}

package api

import (
	"encoding/json"
	"time"
)

// CreateEntitlementRequest is the body of POST /applications/{id}/entitlements.
type CreateEntitlementRequest struct {
	Key         string  `json:"key"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
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
	ExternalProductID     *string          `json:"external_product_id"`
	Policies              json.RawMessage  `json:"policies"` // an object, or null
	Entitlements          []EntitlementRef `json:"entitlements"`
	CreatedAt             time.Time        `json:"created_at"`
	UpdatedAt             time.Time        `json:"updated_at"`
}

package client

import (
	"context"
	"licensectl/server/api"
	"net/http"

	"licensectl/store"
)

// ListEntitlements implements store.Entitlements.
func (c *Client) ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error) {
	var list []api.EntitlementItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "entitlements"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(e api.EntitlementItem) *store.Entitlement { return e.Domain(ref.AppID) }), nil
}

// CreateEntitlement implements store.Entitlements; the entitlement is read
// back from the list, as the API answers only its id.
func (c *Client) CreateEntitlement(ctx context.Context, ref store.AppRef, in store.CreateEntitlementInput) (*store.Entitlement, error) {
	var out api.EntitlementCreated
	body := api.CreateEntitlementRequest{Key: in.Key, Name: in.Name, Description: in.Description}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "entitlements"), org: ref.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	if list, err := c.ListEntitlements(ctx, ref); err == nil {
		for _, e := range list {
			if e.ID == out.EntitlementID {
				return e, nil
			}
		}
	}
	return &store.Entitlement{ID: out.EntitlementID, AppID: ref.AppID, Key: in.Key, Name: in.Name, Description: in.Description}, nil
}

// DeleteEntitlement implements store.Entitlements.
func (c *Client) DeleteEntitlement(ctx context.Context, ref store.AppRef, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(ref.AppID, "entitlements", id), org: ref.OrgID}, nil)
}

// ListPlans implements store.Plans.
func (c *Client) ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error) {
	var list []api.PlanItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "plans"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(p api.PlanItem) *store.Plan { return p.Domain(ref.AppID) }), nil
}

// FindPlan implements store.Plans.
func (c *Client) FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error) {
	var x api.PlanItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "plans", id), org: ref.OrgID}, &x); err != nil {
		return nil, err
	}
	return x.Domain(ref.AppID), nil
}

// planBody is the partial JSON body of a plan create or update: only fields
// set in the input are sent (the PATCH is partial).
func planBody(in store.PlanInput) map[string]any {
	b := map[string]any{}
	if in.Name != nil {
		b["name"] = *in.Name
	}
	if in.IsTrial != nil {
		b["is_trial"] = *in.IsTrial
	}
	if in.DurationDays != nil {
		b["duration_days"] = *in.DurationDays
	}
	if in.MaxDevices != nil {
		b["max_devices"] = *in.MaxDevices
	}
	if in.DeviceResetLimit != nil {
		b["device_reset_limit"] = *in.DeviceResetLimit
	}
	if in.DeviceResetWindowDays != nil {
		b["device_reset_window_days"] = *in.DeviceResetWindowDays
	}
	if in.MaxConcurrent != nil {
		b["max_concurrent"] = *in.MaxConcurrent
	}
	if in.LeaseSeconds != nil {
		b["lease_seconds"] = *in.LeaseSeconds
	}
	if in.MaxOfflineDays != nil {
		b["max_offline_days"] = *in.MaxOfflineDays
	}
	if in.MaintenanceDays != nil {
		b["maintenance_days"] = *in.MaintenanceDays
	}
	if in.Rebind != nil {
		b["rebind"] = *in.Rebind
	}
	if in.ExternalProductID != nil {
		b["external_product_id"] = *in.ExternalProductID
	}
	if in.PoliciesSet {
		if len(in.Policies) == 0 {
			b["policies"] = nil
		} else {
			b["policies"] = in.Policies
		}
	}
	if in.EntitlementIDs != nil {
		ids := *in.EntitlementIDs
		if ids == nil {
			ids = []string{}
		}
		b["entitlement_ids"] = ids
	}
	return b
}

// CreatePlan implements store.Plans.
func (c *Client) CreatePlan(ctx context.Context, ref store.AppRef, in store.PlanInput) (*store.Plan, error) {
	var out api.PlanID
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "plans"), org: ref.OrgID, body: planBody(in)}, &out); err != nil {
		return nil, err
	}
	return c.FindPlan(ctx, ref, out.PlanID)
}

// UpdatePlan implements store.Plans.
func (c *Client) UpdatePlan(ctx context.Context, ref store.AppRef, id string, in store.PlanInput) (*store.Plan, error) {
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(ref.AppID, "plans", id), org: ref.OrgID, body: planBody(in)}, nil); err != nil {
		return nil, err
	}
	return c.FindPlan(ctx, ref, id)
}

// DeletePlan implements store.Plans.
func (c *Client) DeletePlan(ctx context.Context, ref store.AppRef, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(ref.AppID, "plans", id), org: ref.OrgID}, nil)
}

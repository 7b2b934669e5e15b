package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"licensectl/store"
)

// entitlementItem is an entitlement as listed (design.md §7).
type entitlementItem struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

// entitlementRef is an entitlement inside a plan or license.
type entitlementRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

func refsFrom(in []entitlementRef) []store.EntitlementRef {
	return mapList(in, func(e entitlementRef) store.EntitlementRef { return store.EntitlementRef(e) })
}

// planItem is a plan as listed.
type planItem struct {
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	IsTrial           bool             `json:"is_trial"`
	DurationDays      *int             `json:"duration_days"`
	MaxDevices        int              `json:"max_devices"`
	DeviceResetLimit  int              `json:"device_reset_limit"`
	ExternalProductID *string          `json:"external_product_id"`
	Policies          json.RawMessage  `json:"policies"`
	Entitlements      []entitlementRef `json:"entitlements"`
	CreatedAt         time.Time        `json:"created_at"`
	UpdatedAt         time.Time        `json:"updated_at"`
}

// ListEntitlements implements store.Entitlements.
func (c *Client) ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error) {
	var list []entitlementItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "entitlements"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(e entitlementItem) *store.Entitlement {
		return &store.Entitlement{ID: e.ID, AppID: ref.AppID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
	}), nil
}

// CreateEntitlement implements store.Entitlements; the entitlement is read
// back from the list.
func (c *Client) CreateEntitlement(ctx context.Context, ref store.AppRef, in store.CreateEntitlementInput) (*store.Entitlement, error) {
	var out struct {
		EntitlementID string `json:"entitlement_id"`
	}
	body := map[string]any{"key": in.Key, "name": in.Name, "description": in.Description}
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

func planFrom(appID string) func(planItem) *store.Plan {
	return func(x planItem) *store.Plan {
		pl := &store.Plan{ID: x.ID, AppID: appID, Name: x.Name, IsTrial: x.IsTrial, DurationDays: x.DurationDays, MaxDevices: x.MaxDevices,
			DeviceResetLimit: x.DeviceResetLimit, ExternalProductID: x.ExternalProductID, Entitlements: refsFrom(x.Entitlements),
			CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}
		if len(x.Policies) > 0 && string(x.Policies) != "null" {
			pl.Policies = x.Policies
		}
		for _, e := range x.Entitlements {
			pl.EntitlementIDs = append(pl.EntitlementIDs, e.ID)
		}
		return pl
	}
}

// ListPlans implements store.Plans.
func (c *Client) ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error) {
	var list []planItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "plans"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, planFrom(ref.AppID)), nil
}

// FindPlan implements store.Plans by listing: the API has no plan read.
func (c *Client) FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error) {
	list, err := c.ListPlans(ctx, ref)
	if err != nil {
		return nil, err
	}
	for _, pl := range list {
		if pl.ID == id {
			return pl, nil
		}
	}
	return nil, store.NotFound("plan")
}

// planBody is the partial JSON body of a plan create or update: only fields
// set in the input are sent.
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
	var out struct {
		PlanID string `json:"plan_id"`
	}
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

package client

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"licensectl/store"
)

// idName is the {id, name} of a license's plan.
type idName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// idEmail is the {id, email} of a license's user.
type idEmail struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// licenseItem is a license as listed and as generated (design.md §7).
type licenseItem struct {
	ID           string     `json:"id"`
	Key          string     `json:"key"`
	Status       string     `json:"status"`
	Plan         idName     `json:"plan"`
	User         *idEmail   `json:"user"`
	DevicesCount int        `json:"devices_count"`
	ActivatedAt  *time.Time `json:"activated_at"`
	ExpiresAt    *time.Time `json:"expires_at"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// licenseDevice is a device inside a license detail.
type licenseDevice struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Status      string     `json:"status"`
	BoundAt     time.Time  `json:"bound_at"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
}

// licenseDetail is the detail read of a license.
type licenseDetail struct {
	licenseItem
	Devices               []licenseDevice  `json:"devices"`
	Entitlements          []entitlementRef `json:"entitlements"`
	DeviceResetsRemaining int              `json:"device_resets_remaining"`
}

func licenseFrom(appID string) func(licenseItem) *store.LicenseItem {
	return func(x licenseItem) *store.LicenseItem {
		li := &store.LicenseItem{License: store.License{ID: x.ID, AppID: appID, Key: x.Key, PlanID: x.Plan.ID, Status: x.Status,
			ActivatedAt: x.ActivatedAt, ExpiresAt: x.ExpiresAt, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}, PlanName: x.Plan.Name}
		if x.User != nil {
			li.UserID, li.UserEmail = x.User.ID, x.User.Email
		}
		// The list gives a count only; DeviceIDs carries that many
		// placeholders so len(DeviceIDs) is the bound device count.
		if x.DevicesCount > 0 {
			li.DeviceIDs = make([]string, x.DevicesCount)
		}
		return li
	}
}

// generateRequest is the body of POST /licenses.
type generateRequest struct {
	PlanID         string     `json:"plan_id"`
	Quantity       int        `json:"quantity"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	EntitlementIDs []string   `json:"entitlement_ids,omitempty"`
}

// GenerateLicenses implements store.Licenses.
func (c *Client) GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error) {
	var out struct {
		Licenses []licenseItem `json:"licenses"`
	}
	body := generateRequest{PlanID: in.PlanID, Quantity: in.Quantity, ExpiresAt: in.ExpiresAt, EntitlementIDs: in.EntitlementIDs}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses"), org: s.OrgID, env: s.Env, body: body}, &out); err != nil {
		return nil, err
	}
	return mapList(out.Licenses, licenseFrom(s.AppID)), nil
}

// ListLicenses implements store.Licenses.
func (c *Client) ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.PlanID != "" {
		q.Set("plan_id", f.PlanID)
	}
	var out pageBody[licenseItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "licenses"), org: s.OrgID, env: s.Env, query: pageQuery(q, f.PageRequest)}, &out); err != nil {
		return nil, err
	}
	return toPage(out, licenseFrom(s.AppID)), nil
}

// FindLicense implements store.Licenses.
func (c *Client) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	var x licenseDetail
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "licenses", id), org: s.OrgID, env: s.Env}, &x); err != nil {
		return nil, err
	}
	d := &store.LicenseDetail{LicenseItem: *licenseFrom(s.AppID)(x.licenseItem), Entitlements: refsFrom(x.Entitlements)}
	d.DeviceResetsRemaining = x.DeviceResetsRemaining
	d.DeviceIDs = nil
	for _, dv := range x.Devices {
		d.Devices = append(d.Devices, store.LicenseDevice(dv))
		d.DeviceIDs = append(d.DeviceIDs, dv.ID)
	}
	return d, nil
}

// SetLicenseStatus implements store.Licenses; the license is read back.
func (c *Client) SetLicenseStatus(ctx context.Context, s store.Scope, id, status string) (*store.License, error) {
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "licenses", id), org: s.OrgID, env: s.Env, body: map[string]string{"status": status}}, nil); err != nil {
		return nil, err
	}
	d, err := c.FindLicense(ctx, s, id)
	if err != nil {
		return nil, err
	}
	return &d.License, nil
}

// ResetLicenseDevice implements store.Licenses.
func (c *Client) ResetLicenseDevice(ctx context.Context, s store.Scope, licenseID, deviceID string) error {
	return c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses", licenseID, "reset-device"), org: s.OrgID, env: s.Env,
		body: map[string]string{"device_id": deviceID}}, nil)
}

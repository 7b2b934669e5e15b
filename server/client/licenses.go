package client

import (
	"context"
	"licensectl/server/api"
	"net/http"
	"net/url"
	"time"

	"licensectl/store"
)

// GenerateLicenses implements store.Licenses.
func (c *Client) GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error) {
	var out api.LicensesGenerated
	body := api.GenerateLicensesRequest{PlanID: in.PlanID, Quantity: &in.Quantity, EntitlementIDs: in.EntitlementIDs}
	if in.ExpiresAt != nil {
		exp := in.ExpiresAt.UTC().Format(time.RFC3339Nano)
		body.ExpiresAt = &exp
	}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses"), org: s.OrgID, env: s.Env, body: body}, &out); err != nil {
		return nil, err
	}
	return mapList(out.Licenses, func(l api.LicenseItem) *store.LicenseItem { return l.Domain(s.AppID) }), nil
}

// ListLicenses implements store.Licenses.
func (c *Client) ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	q := url.Values{}
	setIf(q, "status", f.Status)
	setIf(q, "plan_id", f.PlanID)
	setIf(q, "key", f.Key)
	setIf(q, "user_id", f.UserID)
	setIf(q, "user_email", f.UserEmail)
	var out api.Page[api.LicenseItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "licenses"), org: s.OrgID, env: s.Env, query: pageQuery(q, f.PageRequest)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(l api.LicenseItem) *store.LicenseItem { return l.Domain(s.AppID) }), nil
}

// FindLicense implements store.Licenses.
func (c *Client) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	var x api.LicenseDetail
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "licenses", id), org: s.OrgID, env: s.Env}, &x); err != nil {
		return nil, err
	}
	return x.Domain(s.AppID), nil
}

// SetLicenseStatus implements store.Licenses; the license is read back, as
// the API answers only its id and status.
func (c *Client) SetLicenseStatus(ctx context.Context, s store.Scope, id, status string) (*store.License, error) {
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "licenses", id), org: s.OrgID, env: s.Env, body: api.StatusRequest{Status: status}}, nil); err != nil {
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
		body: api.ResetDeviceRequest{DeviceID: deviceID}}, nil)
}

// CountLicenseSessions implements store.Licenses.
func (c *Client) CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error) {
	return c.countSessions(ctx, s, "licenses", licenseID)
}

// CountDeviceSessions implements store.Devices.
func (c *Client) CountDeviceSessions(ctx context.Context, s store.Scope, deviceID string) (int, error) {
	return c.countSessions(ctx, s, "devices", deviceID)
}

// countSessions reads GET …/{kind}/{id}/sessions.
func (c *Client) countSessions(ctx context.Context, s store.Scope, kind, id string) (int, error) {
	var out api.ActiveSessions
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, kind, id, "sessions"), org: s.OrgID, env: s.Env}, &out); err != nil {
		return 0, err
	}
	return out.ActiveSessions, nil
}

// RenewLicense implements store.Licenses.
func (c *Client) RenewLicense(ctx context.Context, s store.Scope, id string, in store.RenewInput) (*store.LicenseItem, error) {
	var x api.LicenseDetail
	body := api.RenewLicenseRequest{Days: in.Days, MaintenanceDays: in.MaintenanceDays}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses", id, "renew"), org: s.OrgID, env: s.Env, body: body}, &x); err != nil {
		return nil, err
	}
	return &x.Domain(s.AppID).LicenseItem, nil
}

// RenewLicenses implements store.Licenses.
func (c *Client) RenewLicenses(ctx context.Context, s store.Scope, in store.BulkRenewInput) ([]*store.LicenseItem, error) {
	var out api.LicensesRenewed
	days := in.Days
	body := api.RenewLicensesRequest{LicenseIDs: in.LicenseIDs, Days: &days}
	if body.LicenseIDs == nil {
		body.LicenseIDs = []string{}
	}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses", "renew"), org: s.OrgID, env: s.Env, body: body}, &out); err != nil {
		return nil, err
	}
	return mapList(out.Licenses, func(l api.LicenseItem) *store.LicenseItem { return l.Domain(s.AppID) }), nil
}

// UpdateLicense implements store.Licenses: only the fields present are
// sent, a cleared date or end-user as null; the license is read back, as
// the API answers only its id and status.
func (c *Client) UpdateLicense(ctx context.Context, s store.Scope, id string, u store.LicenseUpdate) (*store.LicenseItem, error) {
	b := map[string]any{}
	if u.Status != nil {
		b["status"] = *u.Status
	}
	for name, v := range map[string]**time.Time{"expires_at": u.ExpiresAt, "maintenance_expires_at": u.MaintenanceExpiresAt} {
		if v == nil {
			continue
		}
		if *v == nil {
			b[name] = nil
		} else {
			b[name] = (*v).UTC().Format(time.RFC3339Nano)
		}
	}
	if u.PlanID != nil {
		b["plan_id"] = *u.PlanID
	}
	if u.UserID != nil {
		if *u.UserID == "" {
			b["user_id"] = nil
		} else {
			b["user_id"] = *u.UserID
		}
	}
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "licenses", id), org: s.OrgID, env: s.Env, body: b}, nil); err != nil {
		return nil, err
	}
	d, err := c.FindLicense(ctx, s, id)
	if err != nil {
		return nil, err
	}
	return &d.LicenseItem, nil
}

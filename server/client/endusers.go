package client

import (
	"context"
	"licensectl/server/api"
	"net/http"
	"net/url"
	"time"

	"licensectl/store"
)

func statusQuery(f store.StatusFilter) url.Values {
	q := url.Values{}
	setIf(q, "status", f.Status)
	setIf(q, "email", f.Email)
	setIf(q, "fingerprint", f.Fingerprint)
	setIf(q, "license_id", f.LicenseID)
	return pageQuery(q, f.PageRequest)
}

// ListEndUsers implements store.EndUsers.
func (c *Client) ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error) {
	var out api.Page[api.EndUserItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "users"), org: s.OrgID, env: s.Env, query: statusQuery(f)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(u api.EndUserItem) *store.EndUser { return u.Domain(s.AppID) }), nil
}

// SetEndUserStatus implements store.EndUsers. The answer carries only id and
// status; the other fields are left zero.
func (c *Client) SetEndUserStatus(ctx context.Context, s store.Scope, id, status string) (*store.EndUser, error) {
	var out api.StatusChanged
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "users", id), org: s.OrgID, env: s.Env, body: api.StatusRequest{Status: status}}, &out); err != nil {
		return nil, err
	}
	return &store.EndUser{ID: out.ID, AppID: s.AppID, Status: out.Status}, nil
}

// AddEndUserRole implements store.EndUsers.
func (c *Client) AddEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	var out api.EndUserRoles
	if err := c.do(ctx, call{method: http.MethodPost, path: p("/v1/mgmt/auth/users", userID, "roles"), org: orgID, body: api.RoleRequest{RoleID: role}}, &out); err != nil {
		return nil, err
	}
	return &store.EndUserRoles{UserID: out.UserID, Roles: out.Roles}, nil
}

// RemoveEndUserRole implements store.EndUsers.
func (c *Client) RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	var out api.EndUserRoles
	if err := c.do(ctx, call{method: http.MethodDelete, path: p("/v1/mgmt/auth/users", userID, "roles", role), org: orgID}, &out); err != nil {
		return nil, err
	}
	return &store.EndUserRoles{UserID: out.UserID, Roles: out.Roles}, nil
}

// ListDevices implements store.Devices.
func (c *Client) ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error) {
	var out api.Page[api.DeviceItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "devices"), org: s.OrgID, env: s.Env, query: statusQuery(f)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(d api.DeviceItem) *store.Device { return d.Domain(s.AppID) }), nil
}

// SetDeviceStatus implements store.Devices. The answer carries only id and
// status; the other fields are left zero.
func (c *Client) SetDeviceStatus(ctx context.Context, s store.Scope, id, status string) (*store.Device, error) {
	var out api.StatusChanged
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "devices", id), org: s.OrgID, env: s.Env, body: api.StatusRequest{Status: status}}, &out); err != nil {
		return nil, err
	}
	return &store.Device{ID: out.ID, AppID: s.AppID, Status: out.Status}, nil
}

// ListAudit implements store.AuditLog.
func (c *Client) ListAudit(ctx context.Context, s store.Scope, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	var out api.Page[api.AuditEntry]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "audit-logs"), org: s.OrgID, env: s.Env, query: auditQuery(f)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(a api.AuditEntry) *store.AuditEntry {
		return &store.AuditEntry{ID: a.ID, OrgID: s.OrgID, AppID: s.AppID, Event: a.Event, Actor: store.Actor{Type: a.Actor.Type, ID: a.Actor.ID},
			Target: store.Target(a.Target), IP: a.IP, UserAgent: a.UserAgent, Metadata: a.Metadata, CreatedAt: a.CreatedAt}
	}), nil
}

// auditQuery encodes the filters and page of an audit log read.
func auditQuery(f store.AuditFilter) url.Values {
	q := url.Values{}
	setIf(q, "event", f.Event)
	setIf(q, "target_id", f.TargetID)
	if f.From != nil {
		q.Set("from", f.From.UTC().Format(time.RFC3339Nano))
	}
	if f.To != nil {
		q.Set("to", f.To.UTC().Format(time.RFC3339Nano))
	}
	return pageQuery(q, f.PageRequest)
}

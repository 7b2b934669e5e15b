package client

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"licensectl/store"
)

// endUserItem is an end-user as listed (design.md §7).
type endUserItem struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Status      string     `json:"status"`
	Roles       []string   `json:"roles"`
	LastLoginAt *time.Time `json:"last_login_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// deviceItem is a device as listed.
type deviceItem struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Name        string     `json:"name"`
	Platform    string     `json:"platform"`
	Status      string     `json:"status"`
	UserID      *string    `json:"user_id"`
	LicenseIDs  []string   `json:"license_ids"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// auditItem is an audit entry as listed.
type auditItem struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Actor     store.Target   `json:"actor"`
	Target    store.Target   `json:"target"`
	IP        string         `json:"ip"`
	UserAgent string         `json:"user_agent"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
}

func statusQuery(f store.StatusFilter) url.Values {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	return pageQuery(q, f.PageRequest)
}

func endUserFrom(appID string) func(endUserItem) *store.EndUser {
	return func(u endUserItem) *store.EndUser {
		return &store.EndUser{ID: u.ID, AppID: appID, Email: u.Email, Status: u.Status, Roles: u.Roles, LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
	}
}

// ListEndUsers implements store.EndUsers.
func (c *Client) ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error) {
	var out pageBody[endUserItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "users"), org: s.OrgID, env: s.Env, query: statusQuery(f)}, &out); err != nil {
		return nil, err
	}
	return toPage(out, endUserFrom(s.AppID)), nil
}

// idStatus is the answer of the status PATCH calls.
type idStatus struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// SetEndUserStatus implements store.EndUsers. The answer carries only id and
// status; the other fields are left zero.
func (c *Client) SetEndUserStatus(ctx context.Context, s store.Scope, id, status string) (*store.EndUser, error) {
	var out idStatus
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "users", id), org: s.OrgID, env: s.Env, body: map[string]string{"status": status}}, &out); err != nil {
		return nil, err
	}
	return &store.EndUser{ID: out.ID, AppID: s.AppID, Status: out.Status}, nil
}

// rolesAnswer is the answer of the role calls.
type rolesAnswer struct {
	UserID string   `json:"user_id"`
	Roles  []string `json:"roles"`
}

// AddEndUserRole implements store.EndUsers.
func (c *Client) AddEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	var out rolesAnswer
	if err := c.do(ctx, call{method: http.MethodPost, path: p("/v1/mgmt/auth/users", userID, "roles"), org: orgID, body: map[string]string{"role_id": role}}, &out); err != nil {
		return nil, err
	}
	return &store.EndUserRoles{UserID: out.UserID, Roles: out.Roles}, nil
}

// RemoveEndUserRole implements store.EndUsers.
func (c *Client) RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error) {
	var out rolesAnswer
	if err := c.do(ctx, call{method: http.MethodDelete, path: p("/v1/mgmt/auth/users", userID, "roles", role), org: orgID}, &out); err != nil {
		return nil, err
	}
	return &store.EndUserRoles{UserID: out.UserID, Roles: out.Roles}, nil
}

// ListDevices implements store.Devices.
func (c *Client) ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error) {
	var out pageBody[deviceItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "devices"), org: s.OrgID, env: s.Env, query: statusQuery(f)}, &out); err != nil {
		return nil, err
	}
	return toPage(out, func(d deviceItem) *store.Device {
		dv := &store.Device{ID: d.ID, AppID: s.AppID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status,
			LicenseIDs: d.LicenseIDs, LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
		if d.UserID != nil {
			dv.UserID = *d.UserID
		}
		return dv
	}), nil
}

// SetDeviceStatus implements store.Devices. The answer carries only id and
// status; the other fields are left zero.
func (c *Client) SetDeviceStatus(ctx context.Context, s store.Scope, id, status string) (*store.Device, error) {
	var out idStatus
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(s.AppID, "devices", id), org: s.OrgID, env: s.Env, body: map[string]string{"status": status}}, &out); err != nil {
		return nil, err
	}
	return &store.Device{ID: out.ID, AppID: s.AppID, Status: out.Status}, nil
}

// ListAudit implements store.AuditLog.
func (c *Client) ListAudit(ctx context.Context, s store.Scope, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	q := url.Values{}
	if f.Event != "" {
		q.Set("event", f.Event)
	}
	if f.From != nil {
		q.Set("from", f.From.UTC().Format(time.RFC3339Nano))
	}
	if f.To != nil {
		q.Set("to", f.To.UTC().Format(time.RFC3339Nano))
	}
	var out pageBody[auditItem]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "audit-logs"), org: s.OrgID, env: s.Env, query: pageQuery(q, f.PageRequest)}, &out); err != nil {
		return nil, err
	}
	return toPage(out, func(a auditItem) *store.AuditEntry {
		return &store.AuditEntry{ID: a.ID, OrgID: s.OrgID, AppID: s.AppID, Event: a.Event, Actor: store.Actor{Type: a.Actor.Type, ID: a.Actor.ID},
			Target: a.Target, IP: a.IP, UserAgent: a.UserAgent, Metadata: a.Metadata, CreatedAt: a.CreatedAt}
	}), nil
}

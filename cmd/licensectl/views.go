package main

import (
	"encoding/json"
	"time"

	"licensectl/server"
	"licensectl/store"
)

// The JSON output of the commands uses the HTTP API's shapes (design.md §7),
// so a script reads the same fields locally and remotely and from the API.

func orgView(o *store.Organization) server.AdminOrganization {
	return server.AdminOrganization{ID: o.ID, Name: o.Name, Slug: o.Slug, EmailVerified: o.EmailVerified, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// memberView is a member as the API lists it.
type memberView struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func newMemberView(m *store.Member) memberView {
	return memberView{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

func appItem(a *store.Application) server.ApplicationItem {
	return server.ApplicationItem{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

func appDetail(a *store.Application) server.ApplicationDetail {
	d := server.ApplicationDetail{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		Environments: []server.EnvironmentItem{}}
	for _, e := range a.Environments {
		d.Environments = append(d.Environments, server.EnvironmentItem{ID: e.ID, Name: e.Name, PublicKey: e.PublicKey, CreatedAt: e.CreatedAt})
	}
	return d
}

func secretItem(x *store.AppSecret) server.SecretItem {
	return server.SecretItem{ID: x.ID, Label: x.Label, EnvironmentID: x.EnvironmentID, LastUsedAt: x.LastUsedAt, RevokedAt: x.RevokedAt, CreatedAt: x.CreatedAt}
}

func apiKeyItem(k *store.APIKey) server.APIKeyItem {
	return server.APIKeyItem{ID: k.ID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
}

// entitlementView is an entitlement as listed.
type entitlementView struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

func newEntitlementView(e *store.Entitlement) entitlementView {
	return entitlementView{ID: e.ID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

// refView is an entitlement inside a plan or license.
type refView struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

func refViews(in []store.EntitlementRef) []refView {
	out := make([]refView, 0, len(in))
	for _, r := range in {
		out = append(out, refView(r))
	}
	return out
}

// planView is a plan as listed.
type planView struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	IsTrial           bool            `json:"is_trial"`
	DurationDays      *int            `json:"duration_days"`
	MaxDevices        int             `json:"max_devices"`
	DeviceResetLimit  int             `json:"device_reset_limit"`
	ExternalProductID *string         `json:"external_product_id"`
	Policies          json.RawMessage `json:"policies"`
	Entitlements      []refView       `json:"entitlements"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
}

func newPlanView(p *store.Plan) planView {
	v := planView{ID: p.ID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices, DeviceResetLimit: p.DeviceResetLimit,
		ExternalProductID: p.ExternalProductID, Policies: p.Policies, Entitlements: refViews(p.Entitlements), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(v.Policies) == 0 {
		v.Policies = json.RawMessage("null")
	}
	return v
}

// idNameView is the plan of a license.
type idNameView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// idEmailView is the user of a license.
type idEmailView struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// licenseView is a license as listed and as generated.
type licenseView struct {
	ID           string       `json:"id"`
	Key          string       `json:"key"`
	Status       string       `json:"status"`
	Plan         idNameView   `json:"plan"`
	User         *idEmailView `json:"user"`
	DevicesCount int          `json:"devices_count"`
	ActivatedAt  *time.Time   `json:"activated_at"`
	ExpiresAt    *time.Time   `json:"expires_at"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
}

func newLicenseView(l *store.LicenseItem, now time.Time) licenseView {
	v := licenseView{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(now), Plan: idNameView{ID: l.PlanID, Name: l.PlanName}, DevicesCount: len(l.DeviceIDs),
		ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if l.UserID != "" {
		v.User = &idEmailView{ID: l.UserID, Email: l.UserEmail}
	}
	return v
}

// licenseDeviceView is a device inside a license detail.
type licenseDeviceView struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Status      string     `json:"status"`
	BoundAt     time.Time  `json:"bound_at"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
}

// licenseDetailView is the detail read of a license.
type licenseDetailView struct {
	licenseView
	Devices               []licenseDeviceView `json:"devices"`
	Entitlements          []refView           `json:"entitlements"`
	DeviceResetsRemaining int                 `json:"device_resets_remaining"`
}

func newLicenseDetailView(d *store.LicenseDetail, now time.Time) licenseDetailView {
	v := licenseDetailView{licenseView: newLicenseView(&d.LicenseItem, now), Devices: []licenseDeviceView{}, Entitlements: refViews(d.Entitlements),
		DeviceResetsRemaining: d.DeviceResetsRemaining}
	for _, dv := range d.Devices {
		v.Devices = append(v.Devices, licenseDeviceView(dv))
	}
	v.DevicesCount = len(d.Devices)
	return v
}

// endUserView is an end-user as listed.
type endUserView struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Status      string     `json:"status"`
	Roles       []string   `json:"roles"`
	LastLoginAt *time.Time `json:"last_login_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

func newEndUserView(u *store.EndUser) endUserView {
	roles := u.Roles
	if roles == nil {
		roles = []string{}
	}
	return endUserView{ID: u.ID, Email: u.Email, Status: u.Status, Roles: roles, LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// deviceView is a device as listed.
type deviceView struct {
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

func newDeviceView(d *store.Device) deviceView {
	v := deviceView{ID: d.ID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status, LicenseIDs: d.LicenseIDs,
		LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
	if v.LicenseIDs == nil {
		v.LicenseIDs = []string{}
	}
	if d.UserID != "" {
		id := d.UserID
		v.UserID = &id
	}
	return v
}

// typeID is the actor or target of an audit entry.
type typeID struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// auditView is an audit entry as listed.
type auditView struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Actor     typeID         `json:"actor"`
	Target    typeID         `json:"target"`
	IP        string         `json:"ip"`
	UserAgent string         `json:"user_agent"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
}

func newAuditView(a *store.AuditEntry) auditView {
	md := a.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return auditView{ID: a.ID, Event: a.Event, Actor: typeID{Type: a.Actor.Type, ID: a.Actor.ID}, Target: typeID(a.Target), IP: a.IP,
		UserAgent: a.UserAgent, Metadata: md, CreatedAt: a.CreatedAt}
}

// pageView is the envelope of paginated lists.
type pageView[T any] struct {
	Data    []T `json:"data"`
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

// mapSlice maps a slice through fn, never returning nil.
func mapSlice[S, T any](in []S, fn func(S) T) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		out = append(out, fn(v))
	}
	return out
}

// successView is the {success: true} of actions without a result.
type successView struct {
	Success bool `json:"success"`
}

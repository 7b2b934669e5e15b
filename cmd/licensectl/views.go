package main

import (
	"encoding/json"
	"time"

	"licensectl/server"
	"licensectl/store"
)

// The JSON output of the commands uses the HTTP API's types (design.md §7),
// so a script reads the same fields locally, remotely and from the API.

func orgView(o *store.Organization) server.AdminOrganization {
	return server.AdminOrganization{ID: o.ID, Name: o.Name, Slug: o.Slug, EmailVerified: o.EmailVerified, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

func memberView(m *store.Member) server.MemberItem {
	return server.MemberItem{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
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

func entitlementView(e *store.Entitlement) server.EntitlementItem {
	return server.EntitlementItem{ID: e.ID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

func refViews(in []store.EntitlementRef) []server.EntitlementRef {
	return mapSlice(in, func(r store.EntitlementRef) server.EntitlementRef { return server.EntitlementRef(r) })
}

func planView(p *store.Plan) server.PlanItem {
	v := server.PlanItem{ID: p.ID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices, DeviceResetLimit: p.DeviceResetLimit,
		ExternalProductID: p.ExternalProductID, Policies: p.Policies, Entitlements: refViews(p.Entitlements), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(v.Policies) == 0 {
		v.Policies = json.RawMessage("null")
	}
	return v
}

func userRef(id, email string) *server.UserRef {
	if id == "" {
		return nil
	}
	return &server.UserRef{ID: id, Email: email}
}

// licenseView is a license as listed and generated, with its effective status at now.
func licenseView(l *store.LicenseItem, now time.Time) server.LicenseItem {
	return server.LicenseItem{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(now), Plan: server.PlanRef{ID: l.PlanID, Name: l.PlanName},
		User: userRef(l.UserID, l.UserEmail), DevicesCount: len(l.DeviceIDs), ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

func licenseDetailView(d *store.LicenseDetail, now time.Time) server.LicenseDetail {
	return server.LicenseDetail{ID: d.ID, Key: d.Key, Status: d.EffectiveStatus(now), Plan: server.PlanRef{ID: d.PlanID, Name: d.PlanName},
		User: userRef(d.UserID, d.UserEmail), Devices: mapSlice(d.Devices, func(x store.LicenseDevice) server.LicenseDevice { return server.LicenseDevice(x) }),
		Entitlements: refViews(d.Entitlements), ActivatedAt: d.ActivatedAt, ExpiresAt: d.ExpiresAt, DeviceResetsRemaining: d.DeviceResetsRemaining,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// nonNil turns a nil list into an empty one, so JSON shows [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func endUserView(u *store.EndUser) server.EndUserItem {
	return server.EndUserItem{ID: u.ID, Email: u.Email, Status: u.Status, Roles: nonNil(u.Roles), LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

func deviceView(d *store.Device) server.DeviceItem {
	v := server.DeviceItem{ID: d.ID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status, LicenseIDs: nonNil(d.LicenseIDs),
		LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
	if d.UserID != "" {
		id := d.UserID
		v.UserID = &id
	}
	return v
}

func auditView(a *store.AuditEntry) server.AuditEntry {
	md := a.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return server.AuditEntry{ID: a.ID, Event: a.Event, Actor: server.AuditActor{Type: a.Actor.Type, ID: a.Actor.ID}, Target: server.AuditTarget(a.Target),
		IP: a.IP, UserAgent: a.UserAgent, Metadata: md, CreatedAt: a.CreatedAt}
}

// pageView is the envelope of paginated lists.
type pageView[T any] struct {
	Data    []T `json:"data"`
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

// newPageView maps a store page through fn.
func newPageView[S, T any](p *store.Page[S], fn func(S) T) pageView[T] {
	return pageView[T]{Data: mapSlice(p.Data, fn), Total: p.Total, Page: p.Page, PerPage: p.PerPage}
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

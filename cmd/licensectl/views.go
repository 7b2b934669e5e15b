package main

import (
	"encoding/json"
	"licensectl/server/api"
	"time"

	"licensectl/store"
)

// The JSON output of the commands uses the HTTP API's types (design.md §7),
// so a script reads the same fields locally, remotely and from the API.

func orgView(o *store.Organization) api.AdminOrganization {
	return api.AdminOrganization{ID: o.ID, Name: o.Name, Slug: o.Slug, EmailVerified: o.EmailVerified, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

func memberView(m *store.Member) api.MemberItem {
	return api.MemberItem{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

func appItem(a *store.Application) api.ApplicationItem {
	return api.ApplicationItem{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

func appDetail(a *store.Application) api.ApplicationDetail {
	d := api.ApplicationDetail{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		Environments: []api.EnvironmentItem{}}
	for _, e := range a.Environments {
		d.Environments = append(d.Environments, api.EnvironmentItem{ID: e.ID, Name: e.Name, PublicKey: e.PublicKey, CreatedAt: e.CreatedAt})
	}
	return d
}

func secretItem(x *store.AppSecret) api.SecretItem {
	return api.SecretItem{ID: x.ID, Label: x.Label, EnvironmentID: x.EnvironmentID, LastUsedAt: x.LastUsedAt, RevokedAt: x.RevokedAt, CreatedAt: x.CreatedAt}
}

func apiKeyItem(k *store.APIKey) api.APIKeyItem {
	return api.APIKeyItem{ID: k.ID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
}

func entitlementView(e *store.Entitlement) api.EntitlementItem {
	return api.EntitlementItem{ID: e.ID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

func refViews(in []store.EntitlementRef) []api.EntitlementRef {
	return mapSlice(in, func(r store.EntitlementRef) api.EntitlementRef { return api.EntitlementRef(r) })
}

func planView(p *store.Plan) api.PlanItem {
	v := api.PlanItem{ID: p.ID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices, DeviceResetLimit: p.DeviceResetLimit,
		DeviceResetWindowDays: p.DeviceResetWindowDays, MaxConcurrent: p.MaxConcurrent, LeaseSeconds: p.LeaseSeconds,
		MaxOfflineDays:    p.MaxOfflineDays,
		ExternalProductID: p.ExternalProductID, Policies: p.Policies, Entitlements: refViews(p.Entitlements), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(v.Policies) == 0 {
		v.Policies = json.RawMessage("null")
	}
	return v
}

func userRef(id, email string) *api.UserRef {
	if id == "" {
		return nil
	}
	return &api.UserRef{ID: id, Email: email}
}

// licenseView is a license as listed and generated, with its effective status at now.
func licenseView(l *store.LicenseItem, now time.Time) api.LicenseItem {
	return api.LicenseItem{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(now), Plan: api.PlanRef{ID: l.PlanID, Name: l.PlanName},
		User: userRef(l.UserID, l.UserEmail), DevicesCount: len(l.DeviceIDs), ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

func licenseDetailView(d *store.LicenseDetail, now time.Time) api.LicenseDetail {
	return api.LicenseDetail{ID: d.ID, Key: d.Key, Status: d.EffectiveStatus(now), Plan: api.PlanRef{ID: d.PlanID, Name: d.PlanName},
		User: userRef(d.UserID, d.UserEmail), Devices: mapSlice(d.Devices, func(x store.LicenseDevice) api.LicenseDevice { return api.LicenseDevice(x) }),
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

func endUserView(u *store.EndUser) api.EndUserItem {
	return api.EndUserItem{ID: u.ID, Email: u.Email, Status: u.Status, Roles: nonNil(u.Roles), LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

func deviceView(d *store.Device) api.DeviceItem {
	v := api.DeviceItem{ID: d.ID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status, LicenseIDs: nonNil(d.LicenseIDs),
		LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
	if d.UserID != "" {
		id := d.UserID
		v.UserID = &id
	}
	return v
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

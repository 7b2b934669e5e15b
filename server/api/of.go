package api

import (
	"encoding/json"
	"time"

	"licensectl/store"
)

// The one mapping from each domain record to its wire form: the server's
// answers and the CLI's JSON output (docs/design.md §7: the same fields locally,
// remotely and from the API) both use these.

// AdminOrganizationOf is the operator's view of an organization.
func AdminOrganizationOf(o *store.Organization) AdminOrganization {
	return AdminOrganization{ID: o.ID, Name: o.Name, Slug: o.Slug, EmailVerified: o.EmailVerified, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// MemberItemOf is a member in lists.
func MemberItemOf(m *store.Member) MemberItem {
	return MemberItem{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// ApplicationItemOf is an application in lists.
func ApplicationItemOf(a *store.Application) ApplicationItem {
	return ApplicationItem{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, SupportEmail: a.SupportEmailOrNil(), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// ApplicationDetailOf is an application with its environments.
func ApplicationDetailOf(a *store.Application) ApplicationDetail {
	d := ApplicationDetail{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, SupportEmail: a.SupportEmailOrNil(), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		Environments: make([]EnvironmentItem, 0, len(a.Environments))}
	for _, e := range a.Environments {
		d.Environments = append(d.Environments, EnvironmentItem{ID: e.ID, Name: e.Name, PublicKey: e.PublicKey, CreatedAt: e.CreatedAt})
	}
	return d
}

// SecretItemOf is an application secret in lists (never its value).
func SecretItemOf(x *store.AppSecret) SecretItem {
	return SecretItem{ID: x.ID, Label: x.Label, EnvironmentID: x.EnvironmentID, LastUsedAt: x.LastUsedAt, RevokedAt: x.RevokedAt, CreatedAt: x.CreatedAt}
}

// APIKeyItemOf is a developer API key in lists (never its value).
func APIKeyItemOf(k *store.APIKey) APIKeyItem {
	return APIKeyItem{ID: k.ID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
}

// EntitlementItemOf is an entitlement in lists.
func EntitlementItemOf(e *store.Entitlement) EntitlementItem {
	return EntitlementItem{ID: e.ID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

// EntitlementRefsOf is the entitlements a plan or license grants.
func EntitlementRefsOf(in []store.EntitlementRef) []EntitlementRef {
	out := make([]EntitlementRef, 0, len(in))
	for _, r := range in {
		out = append(out, EntitlementRef(r))
	}
	return out
}

// PlanItemOf is a plan; policies without a value are null.
func PlanItemOf(p *store.Plan) PlanItem {
	v := PlanItem{ID: p.ID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices,
		DeviceResetLimit: p.DeviceResetLimit, DeviceResetWindowDays: p.DeviceResetWindowDays, MaxConcurrent: p.MaxConcurrent,
		LeaseSeconds: p.LeaseSeconds, MaxOfflineDays: p.MaxOfflineDays, MaintenanceDays: p.MaintenanceDays, Rebind: p.RebindMode(), ExternalProductID: p.ExternalProductID, Policies: p.Policies,
		Entitlements: EntitlementRefsOf(p.Entitlements), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(v.Policies) == 0 {
		v.Policies = json.RawMessage("null")
	}
	return v
}

func userRefOf(id, email string) *UserRef {
	if id == "" {
		return nil
	}
	return &UserRef{ID: id, Email: email}
}

// LicenseItemOf is a license as listed and generated, with its effective
// status at now.
func LicenseItemOf(l *store.LicenseItem, now time.Time) LicenseItem {
	return LicenseItem{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(now), Plan: PlanRef{ID: l.PlanID, Name: l.PlanName},
		User: userRefOf(l.UserID, l.UserEmail), DevicesCount: l.DevicesCount, ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt,
		MaintenanceExpiresAt: l.MaintenanceExpiresAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

// LicenseDetailOf is a license with its devices and entitlements, with its
// effective status at now.
func LicenseDetailOf(d *store.LicenseDetail, now time.Time) LicenseDetail {
	devices := make([]LicenseDevice, 0, len(d.Devices))
	for _, x := range d.Devices {
		devices = append(devices, LicenseDevice{ID: x.ID, Fingerprint: x.Fingerprint, Status: x.Status, BoundAt: x.BoundAt, LastSeenAt: x.LastSeenAt})
	}
	return LicenseDetail{ID: d.ID, Key: d.Key, Status: d.EffectiveStatus(now), Plan: PlanRef{ID: d.PlanID, Name: d.PlanName},
		User: userRefOf(d.UserID, d.UserEmail), Devices: devices, DevicesCount: d.DevicesCount, Entitlements: EntitlementRefsOf(d.Entitlements),
		ActivatedAt: d.ActivatedAt, ExpiresAt: d.ExpiresAt, MaintenanceExpiresAt: d.MaintenanceExpiresAt, DeviceResetsRemaining: d.DeviceResetsRemaining,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// nonNil turns a nil list into an empty one, so JSON shows [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// EndUserItemOf is an end-user in lists.
func EndUserItemOf(u *store.EndUser) EndUserItem {
	return EndUserItem{ID: u.ID, Email: u.Email, Status: u.Status, Roles: nonNil(u.Roles), LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// DeviceItemOf is a device in lists; user_id is null for a device no
// end-user signed in on.
func DeviceItemOf(d *store.Device) DeviceItem {
	var user *string
	if d.UserID != "" {
		id := d.UserID
		user = &id
	}
	return DeviceItem{ID: d.ID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status, UserID: user,
		LicenseIDs: nonNil(d.LicenseIDs), LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
}

// The way back, for the HTTP client (server/client), which serves the store
// interfaces over the API: what the wire form does not carry (the owning
// organization or application) comes from the call.

// Domain is the organization the operator's view describes.
func (o AdminOrganization) Domain() *store.Organization {
	return &store.Organization{ID: o.ID, Name: o.Name, Slug: o.Slug, EmailVerified: o.EmailVerified, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// Domain is the application of organization orgID.
func (a ApplicationItem) Domain(orgID string) *store.Application {
	out := &store.Application{ID: a.ID, OrgID: orgID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.SupportEmail != nil {
		out.SupportEmail = *a.SupportEmail
	}
	return out
}

// Domain is the application of organization orgID with its environments.
func (d ApplicationDetail) Domain(orgID string) *store.Application {
	a := ApplicationItem{ID: d.ID, Name: d.Name, Slug: d.Slug, Status: d.Status, SupportEmail: d.SupportEmail, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}.Domain(orgID)
	for _, e := range d.Environments {
		a.Environments = append(a.Environments, store.Environment{ID: e.ID, Name: e.Name, PublicKey: e.PublicKey, CreatedAt: e.CreatedAt})
	}
	return a
}

// Domain is the developer API key of organization orgID.
func (k APIKeyItem) Domain(orgID string) *store.APIKey {
	return &store.APIKey{ID: k.ID, OrgID: orgID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
}

// Domain is the secret of the application ref names.
func (s SecretItem) Domain(ref store.AppRef) *store.AppSecret {
	return &store.AppSecret{ID: s.ID, OrgID: ref.OrgID, AppID: ref.AppID, EnvironmentID: s.EnvironmentID, Label: s.Label,
		LastUsedAt: s.LastUsedAt, RevokedAt: s.RevokedAt, CreatedAt: s.CreatedAt}
}

// Domain is the entitlement of application appID.
func (e EntitlementItem) Domain(appID string) *store.Entitlement {
	return &store.Entitlement{ID: e.ID, AppID: appID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

// Domain is the plan of application appID; null policies are none.
func (p PlanItem) Domain(appID string) *store.Plan {
	pl := &store.Plan{ID: p.ID, AppID: appID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices,
		DeviceResetLimit: p.DeviceResetLimit, DeviceResetWindowDays: p.DeviceResetWindowDays, MaxConcurrent: p.MaxConcurrent,
		LeaseSeconds: p.LeaseSeconds, MaxOfflineDays: p.MaxOfflineDays, MaintenanceDays: p.MaintenanceDays, Rebind: p.Rebind, ExternalProductID: p.ExternalProductID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if len(p.Policies) > 0 && string(p.Policies) != "null" {
		pl.Policies = p.Policies
	}
	for _, e := range p.Entitlements {
		pl.Entitlements = append(pl.Entitlements, store.EntitlementRef(e))
		pl.EntitlementIDs = append(pl.EntitlementIDs, e.ID)
	}
	return pl
}

// Domain is the end-user of application appID.
func (u EndUserItem) Domain(appID string) *store.EndUser {
	return &store.EndUser{ID: u.ID, AppID: appID, Email: u.Email, Status: u.Status, Roles: u.Roles, LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// Domain is the license of application appID as listed: devices_count
// becomes as many placeholder DeviceIDs, so len(DeviceIDs) is the bound
// device count.
func (l LicenseItem) Domain(appID string) *store.LicenseItem {
	li := &store.LicenseItem{License: store.License{ID: l.ID, AppID: appID, Key: l.Key, PlanID: l.Plan.ID, Status: l.Status,
		DevicesCount: l.DevicesCount, ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt, MaintenanceExpiresAt: l.MaintenanceExpiresAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}, PlanName: l.Plan.Name}
	if l.User != nil {
		li.UserID, li.UserEmail = l.User.ID, l.User.Email
	}
	return li
}

// Domain is the device of application appID.
func (d DeviceItem) Domain(appID string) *store.Device {
	dv := &store.Device{ID: d.ID, AppID: appID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status,
		LicenseIDs: d.LicenseIDs, LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
	if d.UserID != nil {
		dv.UserID = *d.UserID
	}
	return dv
}

// Domain is the license of application appID with its devices and
// entitlements.
func (x LicenseDetail) Domain(appID string) *store.LicenseDetail {
	item := LicenseItem{ID: x.ID, Key: x.Key, Status: x.Status, Plan: x.Plan, User: x.User, DevicesCount: x.DevicesCount,
		ActivatedAt: x.ActivatedAt, ExpiresAt: x.ExpiresAt, MaintenanceExpiresAt: x.MaintenanceExpiresAt, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}.Domain(appID)
	d := &store.LicenseDetail{LicenseItem: *item}
	d.DeviceResetsRemaining = x.DeviceResetsRemaining
	for _, e := range x.Entitlements {
		d.Entitlements = append(d.Entitlements, store.EntitlementRef(e))
	}
	d.Devices = make([]store.LicenseDevice, 0, len(x.Devices))
	for _, dv := range x.Devices {
		d.Devices = append(d.Devices, store.LicenseDevice{ID: dv.ID, Fingerprint: dv.Fingerprint, Status: dv.Status, BoundAt: dv.BoundAt, LastSeenAt: dv.LastSeenAt})
	}
	return d
}

// OrganizationDetailOf is the organization as its own members read it.
func OrganizationDetailOf(o *store.Organization) OrganizationDetail {
	return OrganizationDetail{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, EmailVerified: o.EmailVerified}
}

// Domain is the organization its member reads.
func (d OrganizationDetail) Domain() *store.Organization {
	return &store.Organization{ID: d.ID, Name: d.Name, Slug: d.Slug, EmailVerified: d.EmailVerified, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

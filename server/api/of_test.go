package api_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"licensectl/server/api"
	"licensectl/store"
)

// TestWebhookObjectsAreAPIShapes: a webhook's data.object (store's
// snapshots; store cannot import this package) is the record as the API
// lists it (the organization, which has no list, as GET
// /organizations/me reads it), field for field and value for value, so a
// receiver parses both with one type.
func TestWebhookObjectsAreAPIShapes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	later := at.Add(time.Hour)
	days, ext, desc := 30, "prod-1", "the pro tier"
	lic := &store.LicenseItem{License: store.License{ID: "l1", Key: "K-1", PlanID: "p1", Status: store.LicenseActive, UserID: "u1",
		DevicesCount: 2, ActivatedAt: &at, ExpiresAt: &later, CreatedAt: at, UpdatedAt: later}, PlanName: "Pro", UserEmail: "a@b.test"}
	plan := &store.Plan{ID: "p1", Name: "Pro", IsTrial: true, DurationDays: &days, MaxDevices: 3, DeviceResetLimit: 2, ExternalProductID: &ext,
		Policies: json.RawMessage(`{"offline_days":7}`), EntitlementIDs: []string{"e1"}, Entitlements: []store.EntitlementRef{{ID: "e1", Key: "pro", Name: "Pro"}},
		CreatedAt: at, UpdatedAt: later}
	secret := &store.AppSecret{ID: "s1", OrgID: "o1", AppID: "a1", EnvironmentID: "env1", Env: store.EnvProduction, Label: "ci", Hash: "h",
		LastUsedAt: &at, RevokedAt: &later, CreatedAt: at}
	key := &store.APIKey{ID: "k1", OrgID: "o1", Label: "deploy", Hash: "h", LastUsedAt: &at, RevokedAt: &later, CreatedAt: at}
	member := &store.Member{ID: "m1", OrgID: "o1", Email: "m@b.test", PasswordHash: "h", FirstName: "M", Role: store.RoleAdmin,
		EmailVerified: true, CreatedAt: at, UpdatedAt: later}
	org := &store.Organization{ID: "o1", Name: "O", Slug: "o", EmailVerified: true, CreatedAt: at, UpdatedAt: later}
	cases := []struct {
		name          string
		snapshot, api any
	}{
		{"license", store.SnapshotLicense(lic, at), api.LicenseItemOf(lic, at)},
		{"unassigned license", store.SnapshotLicense(&store.LicenseItem{License: store.License{ID: "l2", Status: store.LicenseInactive}}, at),
			api.LicenseItemOf(&store.LicenseItem{License: store.License{ID: "l2", Status: store.LicenseInactive}}, at)},
		{"end-user", store.SnapshotUser(&store.EndUser{ID: "u1", Email: "a@b.test", Status: "active", LastLoginAt: &at, CreatedAt: at, UpdatedAt: later}),
			api.EndUserItemOf(&store.EndUser{ID: "u1", Email: "a@b.test", Status: "active", LastLoginAt: &at, CreatedAt: at, UpdatedAt: later})},
		{"device", store.SnapshotDevice(&store.Device{ID: "d1", Fingerprint: "fp", Name: "n", Platform: "linux", Status: "active", UserID: "u1", LastSeenAt: &at, CreatedAt: at}),
			api.DeviceItemOf(&store.Device{ID: "d1", Fingerprint: "fp", Name: "n", Platform: "linux", Status: "active", UserID: "u1", LastSeenAt: &at, CreatedAt: at})},
		{"device without user", store.SnapshotDevice(&store.Device{ID: "d2", LicenseIDs: []string{"l1"}}), api.DeviceItemOf(&store.Device{ID: "d2", LicenseIDs: []string{"l1"}})},
		{"plan", store.SnapshotPlan(plan), api.PlanItemOf(plan)},
		{"plan without policies", store.SnapshotPlan(&store.Plan{ID: "p2"}), api.PlanItemOf(&store.Plan{ID: "p2"})},
		{"entitlement", store.SnapshotEntitlement(&store.Entitlement{ID: "e1", Key: "pro", Name: "Pro", Description: &desc, CreatedAt: at}),
			api.EntitlementItemOf(&store.Entitlement{ID: "e1", Key: "pro", Name: "Pro", Description: &desc, CreatedAt: at})},
		{"application", store.SnapshotApplication(&store.Application{ID: "a1", Name: "A", Slug: "a", Status: "active", CreatedAt: at, UpdatedAt: later}),
			api.ApplicationItemOf(&store.Application{ID: "a1", Name: "A", Slug: "a", Status: "active", CreatedAt: at, UpdatedAt: later})},
		{"webhook", store.SnapshotWebhook(&store.Webhook{ID: "w1", AppID: "a1", URL: "https://x.test/h", Events: []string{"license.created"}, Status: "active", CreatedAt: at}),
			api.WebhookOf(&store.Webhook{ID: "w1", AppID: "a1", URL: "https://x.test/h", Events: []string{"license.created"}, Status: "active", CreatedAt: at})},
		{"secret", store.SnapshotSecret(secret), api.SecretItemOf(secret)},
		{"unused secret", store.SnapshotSecret(&store.AppSecret{ID: "s2"}), api.SecretItemOf(&store.AppSecret{ID: "s2"})},
		{"API key", store.SnapshotAPIKey(key), api.APIKeyItemOf(key)},
		{"member", store.SnapshotMember(member), api.MemberItemOf(member)},
		{"organization", store.SnapshotOrganization(org), api.OrganizationDetailOf(org)},
	}
	for _, c := range cases {
		snap, wire := asMap(t, c.snapshot), asMap(t, c.api)
		if !reflect.DeepEqual(snap, wire) {
			t.Errorf("%s: data.object\n%v\nthe API's\n%v", c.name, snap, wire)
		}
	}
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDomainRoundTrip: the client's way back from a wire form (Domain) and
// the server's way there (XOf) agree: a wire value read back and written
// again is the same JSON.
func TestDomainRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	later := at.Add(time.Hour)
	days, ext, desc, user := 30, "prod-1", "d", "u1"
	ents := []api.EntitlementRef{{ID: "e1", Key: "pro", Name: "Pro"}}
	lic := api.LicenseItem{ID: "l1", Key: "K", Status: "active", Plan: api.PlanRef{ID: "p1", Name: "Pro"}, User: &api.UserRef{ID: "u1", Email: "a@b.test"},
		DevicesCount: 2, ActivatedAt: &at, ExpiresAt: &later, CreatedAt: at, UpdatedAt: later}
	detail := api.LicenseDetail{ID: "l1", Key: "K", Status: "active", Plan: lic.Plan, User: lic.User,
		Devices: []api.LicenseDevice{{ID: "d1", Fingerprint: "fp", Status: "active", BoundAt: at, LastSeenAt: &later}}, Entitlements: ents,
		ActivatedAt: &at, ExpiresAt: &later, DeviceResetsRemaining: 1, CreatedAt: at, UpdatedAt: later}
	org := api.AdminOrganization{ID: "o1", Name: "Acme", Slug: "acme", EmailVerified: true, CreatedAt: at, UpdatedAt: later}
	own := api.OrganizationDetail{ID: "o1", Name: "Acme", Slug: "acme", EmailVerified: true, CreatedAt: at, UpdatedAt: later}
	app := api.ApplicationDetail{ID: "a1", Name: "A", Slug: "a", Status: "active", CreatedAt: at, UpdatedAt: later,
		Environments: []api.EnvironmentItem{{ID: "env1", Name: "production", PublicKey: "pk_live_x", CreatedAt: at}}}
	item := api.ApplicationItem{ID: "a1", Name: "A", Slug: "a", Status: "active", CreatedAt: at, UpdatedAt: later}
	key := api.APIKeyItem{ID: "k1", Label: "ci", LastUsedAt: &at, CreatedAt: at}
	secret := api.SecretItem{ID: "s1", Label: "srv", EnvironmentID: "env1", RevokedAt: &later, CreatedAt: at}
	ent := api.EntitlementItem{ID: "e1", Key: "pro", Name: "Pro", Description: &desc, CreatedAt: at}
	plan := api.PlanItem{ID: "p1", Name: "Pro", IsTrial: true, DurationDays: &days, MaxDevices: 3, DeviceResetLimit: 1, ExternalProductID: &ext, Rebind: "most",
		Policies: json.RawMessage(`{"offline_days":7}`), Entitlements: ents, CreatedAt: at, UpdatedAt: later}
	endUser := api.EndUserItem{ID: "u1", Email: "a@b.test", Status: "active", Roles: []string{"admin"}, LastLoginAt: &at, CreatedAt: at, UpdatedAt: later}
	device := api.DeviceItem{ID: "d1", Fingerprint: "fp", Name: "n", Platform: "linux", Status: "active", UserID: &user, LicenseIDs: []string{"l1"}, LastSeenAt: &at, CreatedAt: at}
	ref := store.AppRef{OrgID: "o1", AppID: "a1"}
	for _, c := range []struct {
		name       string
		wire, back any
	}{
		{"organization", org, api.AdminOrganizationOf(org.Domain())},
		{"own organization", own, api.OrganizationDetailOf(own.Domain())},
		{"application", item, api.ApplicationItemOf(item.Domain("o1"))},
		{"application detail", app, api.ApplicationDetailOf(app.Domain("o1"))},
		{"API key", key, api.APIKeyItemOf(key.Domain("o1"))},
		{"secret", secret, api.SecretItemOf(secret.Domain(ref))},
		{"entitlement", ent, api.EntitlementItemOf(ent.Domain("a1"))},
		{"plan", plan, api.PlanItemOf(plan.Domain("a1"))},
		{"end-user", endUser, api.EndUserItemOf(endUser.Domain("a1"))},
		{"device", device, api.DeviceItemOf(device.Domain("a1"))},
		{"license", lic, api.LicenseItemOf(lic.Domain("a1"), at)},
		{"license detail", detail, api.LicenseDetailOf(detail.Domain("a1"), at)},
	} {
		if w, b := asMap(t, c.wire), asMap(t, c.back); !reflect.DeepEqual(w, b) {
			t.Errorf("%s: sent\n%v\nread back and written again\n%v", c.name, w, b)
		}
	}
}

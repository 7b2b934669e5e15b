package storetest

import (
	"slices"
	"strings"
	"testing"

	"licensectl/store"
)

func testOrganizations(t *testing.T, open Opener) {
	f := newFixture(t, open)
	t.Run("OK", func(t *testing.T) {
		got, err := f.db.FindOrganization(f.ctx, f.org.ID)
		if err != nil || got.ID != f.org.ID || got.Name != f.org.Name || got.Slug == "" {
			t.Fatalf("FindOrganization = %+v, %v", got, err)
		}
		members, err := f.db.ListMembers(f.ctx, f.org.ID)
		if err != nil || len(members) != 1 || members[0].Role != store.RoleOwner {
			t.Fatalf("ListMembers = %+v, %v", members, err)
		}
		m, err := f.db.FindMember(f.ctx, f.org.ID, members[0].ID)
		if err != nil || m.Email != members[0].Email {
			t.Fatalf("FindMember = %+v, %v", m, err)
		}
		all, err := f.db.ListOrganizations(f.ctx)
		if err != nil || !slices.ContainsFunc(all, func(o *store.Organization) bool { return o.ID == f.org.ID }) {
			t.Fatalf("ListOrganizations = %+v, %v; want it to hold %s", all, err, f.org.ID)
		}
	})
	t.Run("OKSlugs", func(t *testing.T) {
		// An organization's slug comes from its name; a name taken gets the
		// first free -N, a name too short for a slug the prefix org-, a long
		// one is cut to leave room for the -N.
		long := strings.Repeat("very long organization name ", 3)
		for _, tc := range []struct{ name, slug string }{
			{"Slug Twins", "slug-twins"},
			{"Slug Twins", "slug-twins-2"},
			{"slug twins!", "slug-twins-3"},
			{"X", "org-x"},
			{"42", "org"},
			{long, "very-long-organization-name-very-long-organization-name"},
			{long, "very-long-organization-name-very-long-organization-name-2"},
		} {
			o, err := f.db.CreateOrganization(f.ctx, store.CreateOrganizationInput{Name: tc.name})
			if err != nil || o.Slug != tc.slug {
				t.Fatalf("CreateOrganization(%q) = %+v, %v; want slug %q", tc.name, o, err, tc.slug)
			}
			got, err := f.db.FindOrganization(f.ctx, o.ID)
			if err != nil || got.Slug != tc.slug {
				t.Fatalf("FindOrganization(%q) = %+v, %v; want slug %q", tc.name, got, err, tc.slug)
			}
		}
	})
	t.Run("ErrEmailTaken", func(t *testing.T) {
		members, err := f.db.ListMembers(f.ctx, f.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.db.CreateOrganization(f.ctx, store.CreateOrganizationInput{Name: "Twin", OwnerEmail: members[0].Email, OwnerPassword: Password})
		wantCode(t, "CreateOrganization(owner taken)", err, store.ECodeEmailTaken)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, name := range []string{"", "  ", "bad\x1bname"} {
			_, err := f.db.CreateOrganization(f.ctx, store.CreateOrganizationInput{Name: name})
			wantCode(t, "CreateOrganization("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.db.FindOrganization(f.ctx, store.NewID())
		wantCode(t, "FindOrganization(unknown)", err, store.ECodeNotFound)
		_, err = f.db.UpdateOrganization(f.ctx, store.NewID(), store.OrganizationUpdate{Name: ptr("Nobody")})
		wantCode(t, "UpdateOrganization(unknown)", err, store.ECodeNotFound)
		_, err = f.db.FindMember(f.ctx, f.org.ID, store.NewID())
		wantCode(t, "FindMember(unknown)", err, store.ECodeNotFound)
	})
	t.Run("ErrLastOwner", func(t *testing.T) {
		members, err := f.db.ListMembers(f.ctx, f.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, "RemoveMember(last owner)", f.db.RemoveMember(f.ctx, f.org.ID, members[0].ID), store.ECodeLastOwner)
	})
}

func testApplications(t *testing.T, open Opener) {
	f := newFixture(t, open)
	t.Run("OK", func(t *testing.T) {
		if f.app.Slug != "studio" || f.app.Status != store.AppActive || len(f.app.Environments) != 2 {
			t.Fatalf("created = %+v", f.app)
		}
		up, err := f.db.UpdateApplication(f.ctx, f.ref(), store.ApplicationUpdate{Name: ptr("Studio Pro")})
		if err != nil || up.Name != "Studio Pro" || up.Slug != "studio" {
			t.Fatalf("UpdateApplication = %+v, %v", up, err)
		}
		list, err := f.db.ListApplications(f.ctx, f.org.ID)
		if err != nil || len(list) != 1 || list[0].Name != "Studio Pro" {
			t.Fatalf("ListApplications = %+v, %v", list, err)
		}
	})
	t.Run("OKSupportEmail", func(t *testing.T) {
		a, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: "Helped", SupportEmail: " Help@Vendor.Example "})
		if err != nil || a.SupportEmail != "help@vendor.example" {
			t.Fatalf("CreateApplication(support_email) = %+v, %v", a, err)
		}
		ref := store.AppRef{OrgID: f.org.ID, AppID: a.ID}
		for _, c := range []struct{ set, want string }{{"desk@vendor.example", "desk@vendor.example"}, {"", ""}} {
			if _, err := f.db.UpdateApplication(f.ctx, ref, store.ApplicationUpdate{SupportEmail: ptr(c.set)}); err != nil {
				t.Fatal(err)
			}
			got, err := f.db.FindApplication(f.ctx, ref)
			if err != nil || got.SupportEmail != c.want {
				t.Fatalf("after setting support_email %q: %+v, %v", c.set, got, err)
			}
		}
		_, err = f.db.UpdateApplication(f.ctx, ref, store.ApplicationUpdate{SupportEmail: ptr("not an address")})
		wantCode(t, "UpdateApplication(bad support_email)", err, store.ECodeValidation)
		_, err = f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: "Unhelped", SupportEmail: "help@"})
		wantCode(t, "CreateApplication(bad support_email)", err, store.ECodeValidation)
		if err := f.db.DeleteApplication(f.ctx, ref, true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: " "})
		wantCode(t, "CreateApplication(blank name)", err, store.ECodeValidation)
		_, err = f.db.UpdateApplication(f.ctx, f.ref(), store.ApplicationUpdate{Name: ptr("bad\x00name")})
		wantCode(t, "UpdateApplication(control character)", err, store.ECodeValidation)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		unknown := store.AppRef{OrgID: f.org.ID, AppID: store.NewID()}
		_, err := f.db.FindApplication(f.ctx, unknown)
		wantCode(t, "FindApplication(unknown)", err, store.ECodeNotFound)
		wantCode(t, "DeleteApplication(unknown)", f.db.DeleteApplication(f.ctx, unknown, false), store.ECodeNotFound)
		_, err = f.db.CreateEntitlement(f.ctx, unknown, store.CreateEntitlementInput{Key: "pro", Name: "Pro"})
		wantCode(t, "CreateEntitlement(unknown application)", err, store.ECodeNotFound)
		_, err = f.db.CreatePlan(f.ctx, unknown, store.PlanInput{Name: ptr("Pro")})
		wantCode(t, "CreatePlan(unknown application)", err, store.ECodeNotFound)
		_, _, err = f.db.CreateAppSecret(f.ctx, unknown, store.CreateSecretInput{EnvironmentID: f.app.Env(store.EnvProduction).ID})
		wantCode(t, "CreateAppSecret(unknown application)", err, store.ECodeNotFound)
		_, err = f.db.GenerateLicenses(f.ctx, store.Scope{OrgID: f.org.ID, AppID: unknown.AppID, Env: store.EnvProduction}, store.GenerateLicensesInput{PlanID: store.NewID(), Quantity: 1})
		wantCode(t, "GenerateLicenses(unknown application)", err, store.ECodeNotFound)
	})
	t.Run("OKDisable", func(t *testing.T) {
		if err := f.db.DeleteApplication(f.ctx, f.ref(), false); err != nil {
			t.Fatal(err)
		}
		a, err := f.db.FindApplication(f.ctx, f.ref())
		if err != nil || a.Status != store.AppDisabled {
			t.Fatalf("disabled application = %+v, %v", a, err)
		}
		a, err = f.db.UpdateApplication(f.ctx, f.ref(), store.ApplicationUpdate{Status: ptr(store.AppActive)})
		if err != nil || a.Status != store.AppActive {
			t.Fatalf("enabled again = %+v, %v", a, err)
		}
	})
	t.Run("ErrSlugTaken", func(t *testing.T) {
		_, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: "Other", Slug: "studio"})
		wantCode(t, "CreateApplication(taken slug)", err, store.ECodeSlugTaken)
	})
	t.Run("OKDeleteForGood", func(t *testing.T) {
		a, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: "Gone"})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: f.org.ID, AppID: a.ID}
		if err := f.db.DeleteApplication(f.ctx, ref, true); err != nil {
			t.Fatal(err)
		}
		_, err = f.db.FindApplication(f.ctx, ref)
		wantCode(t, "FindApplication(deleted)", err, store.ECodeNotFound)
	})
}

func testCatalog(t *testing.T, open Opener) {
	f := newFixture(t, open)
	ent, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "pro", Name: "Pro"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		p, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Pro"), MaxDevices: ptr(3), EntitlementIDs: &[]string{ent.ID}})
		if err != nil || p.MaxDevices != 3 || p.DeviceResetLimit != store.DefaultDeviceResetLimit || len(p.Entitlements) != 1 || p.Entitlements[0].Key != "pro" {
			t.Fatalf("CreatePlan = %+v, %v", p, err)
		}
		up, err := f.db.UpdatePlan(f.ctx, f.ref(), p.ID, store.PlanInput{MaxDevices: ptr(5)})
		if err != nil || up.MaxDevices != 5 || up.Name != "Pro" {
			t.Fatalf("UpdatePlan = %+v, %v", up, err)
		}
		list, err := f.db.ListPlans(f.ctx, f.ref())
		if err != nil || len(list) != 1 || list[0].ID != p.ID || len(list[0].Entitlements) != 1 {
			t.Fatalf("ListPlans = %+v, %v", list, err)
		}
		_, err = f.db.UpdatePlan(f.ctx, f.ref(), p.ID, store.PlanInput{MaxDevices: ptr(0)})
		wantCode(t, "UpdatePlan(zero devices)", err, store.ECodeValidation)
		_, err = f.db.UpdatePlan(f.ctx, f.ref(), store.NewID(), store.PlanInput{MaxDevices: ptr(2)})
		wantCode(t, "UpdatePlan(unknown)", err, store.ECodeNotFound)
		wantCode(t, "DeletePlan(unknown)", f.db.DeletePlan(f.ctx, f.ref(), store.NewID()), store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, in := range map[string]store.PlanInput{
			"no name":           {},
			"zero devices":      {Name: ptr("X"), MaxDevices: ptr(0)},
			"too many devices":  {Name: ptr("X"), MaxDevices: ptr(1_000_001)},
			"duration overflow": {Name: ptr("X"), DurationDays: ptr(ptr(106_752))},
			"unknown ent":       {Name: ptr("X"), EntitlementIDs: &[]string{store.NewID()}},
		} {
			_, err := f.db.CreatePlan(f.ctx, f.ref(), in)
			wantCode(t, "CreatePlan("+name+")", err, store.ECodeValidation)
		}
		_, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "Not A Key", Name: "x"})
		wantCode(t, "CreateEntitlement(bad key)", err, store.ECodeValidation)
	})
	t.Run("ErrConflict", func(t *testing.T) {
		_, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "pro", Name: "Again"})
		wantCode(t, "CreateEntitlement(duplicate)", err, store.ECodeConflict)
	})
}

func testLicenses(t *testing.T, open Opener) {
	f := newFixture(t, open)
	plan, gen := f.licenses(t, store.PlanInput{Name: ptr("Pro")}, 5)
	sc := f.scope(store.EnvProduction)
	t.Run("OKListAndPages", func(t *testing.T) {
		p, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{PageRequest: store.PageRequest{Page: 2, PerPage: 2}})
		if err != nil || p.Total != 5 || len(p.Data) != 2 || p.Page != 2 {
			t.Fatalf("page 2 = %+v, %v", p, err)
		}
		past, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{PageRequest: store.PageRequest{Page: 9, PerPage: 2}})
		if err != nil || past.Total != 5 || len(past.Data) != 0 {
			t.Fatalf("page past the end = %+v, %v", past, err)
		}
		dev, err := f.db.ListLicenses(f.ctx, f.scope(store.EnvDevelopment), store.LicenseFilter{})
		if err != nil || dev.Total != 0 {
			t.Fatalf("development = %+v, %v", dev, err)
		}
	})
	t.Run("OKLookupByKey", func(t *testing.T) {
		p, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Key: gen[2].Key})
		if err != nil || p.Total != 1 || p.Data[0].ID != gen[2].ID {
			t.Fatalf("by key = %+v, %v", p, err)
		}
	})
	t.Run("OKStatusMachine", func(t *testing.T) {
		id := gen[0].ID
		for _, step := range []struct{ to, want, code string }{
			{store.LicenseSuspended, store.LicenseSuspended, ""},
			{store.LicenseSuspended, store.LicenseSuspended, ""}, // a retried change is a no-op
			{store.LicenseActive, store.LicenseInactive, ""},     // reinstated, never activated
			{store.LicenseRevoked, store.LicenseRevoked, ""},
			{store.LicenseActive, "", store.ECodeTransition}, // revoked is final
			{"bogus", "", store.ECodeValidation},
		} {
			l, err := f.db.SetLicenseStatus(f.ctx, sc, id, step.to)
			if step.code != "" {
				wantCode(t, "SetLicenseStatus("+step.to+")", err, step.code)
				continue
			}
			if err != nil || l.EffectiveStatus(f.clock.Now()) != step.want {
				t.Fatalf("SetLicenseStatus(%s) = %+v, %v; want %s", step.to, l, err, step.want)
			}
		}
		audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLicenseRevoked})
		if err != nil || audit.Total != 1 || audit.Data[0].Target.ID != id {
			t.Fatalf("audit of the revocation = %+v, %v", audit, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.db.SetLicenseStatus(f.ctx, sc, store.NewID(), store.LicenseSuspended)
		wantCode(t, "SetLicenseStatus(unknown)", err, store.ECodeNotFound)
		_, err = f.db.FindLicense(f.ctx, f.scope(store.EnvDevelopment), gen[1].ID)
		wantCode(t, "FindLicense(other environment)", err, store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, q := range []int{-1, store.MaxGenerate + 1} {
			_, err := f.db.GenerateLicenses(f.ctx, sc, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: q})
			wantCode(t, "GenerateLicenses(quantity)", err, store.ECodeValidation)
		}
		_, err := f.db.GenerateLicenses(f.ctx, sc, store.GenerateLicensesInput{PlanID: store.NewID(), Quantity: 1})
		wantCode(t, "GenerateLicenses(unknown plan)", err, store.ECodeValidation)
	})
}

func testCredentials(t *testing.T, open Opener) {
	f := newFixture(t, open)
	t.Run("OK", func(t *testing.T) {
		k, plain, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "ci")
		if err != nil || plain == "" || k.Label != "ci" {
			t.Fatalf("CreateAPIKey = %+v, %q, %v", k, plain, err)
		}
		list, err := f.db.ListAPIKeys(f.ctx, f.org.ID)
		if err != nil || len(list) != 1 || list[0].ID != k.ID || list[0].RevokedAt != nil {
			t.Fatalf("ListAPIKeys = %+v, %v", list, err)
		}
		if err := f.db.RevokeAPIKey(f.ctx, f.org.ID, k.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.db.RevokeAPIKey(f.ctx, f.org.ID, k.ID); err != nil {
			t.Fatalf("revoking twice: %v", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantCode(t, "RevokeAPIKey(unknown)", f.db.RevokeAPIKey(f.ctx, f.org.ID, store.NewID()), store.ECodeNotFound)
	})
}

// testIsolation: another organization's records are not found through any
// method, never forbidden.
func testIsolation(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, theirApp := seedOrg(t, f.db, f.ctx)
	theirs := store.AppRef{OrgID: f.org.ID, AppID: theirApp.ID} // my organization, their application
	_, err := f.db.FindApplication(f.ctx, theirs)
	wantCode(t, "FindApplication(theirs)", err, store.ECodeNotFound)
	_, err = f.db.ListPlans(f.ctx, theirs)
	wantCode(t, "ListPlans(theirs)", err, store.ECodeNotFound)
	_, err = f.db.ListLicenses(f.ctx, store.Scope{OrgID: f.org.ID, AppID: theirApp.ID, Env: store.EnvProduction}, store.LicenseFilter{})
	wantCode(t, "ListLicenses(theirs)", err, store.ECodeNotFound)
	_, err = f.db.UpdateApplication(f.ctx, theirs, store.ApplicationUpdate{Name: ptr("Mine")})
	wantCode(t, "UpdateApplication(theirs)", err, store.ECodeNotFound)
}

package storetest

import (
	"testing"
	"time"

	"licensectl/store"
)

// testMembers: members come and go; the address is unique; weak input is
// refused.
func testMembers(t *testing.T, open Opener) {
	f := newFixture(t, open)
	in := store.AddMemberInput{OrgID: f.org.ID, Email: "dev@conformance.test", Password: Password, Role: store.RoleDeveloper, FirstName: "Dev", LastName: "Eloper"}
	m, err := f.db.AddMember(f.ctx, in)
	if err != nil || m.Role != store.RoleDeveloper || m.Email != in.Email {
		t.Fatalf("AddMember = %+v, %v", m, err)
	}
	t.Run("ErrEmailTaken", func(t *testing.T) {
		_, err := f.db.AddMember(f.ctx, in)
		wantCode(t, "AddMember(again)", err, store.ECodeEmailTaken)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, bad := range map[string]func(*store.AddMemberInput){
			"role":     func(i *store.AddMemberInput) { i.Role = "king" },
			"email":    func(i *store.AddMemberInput) { i.Email = "not an address" },
			"password": func(i *store.AddMemberInput) { i.Password = "short" },
		} {
			i := in
			i.Email = "other@conformance.test"
			bad(&i)
			_, err := f.db.AddMember(f.ctx, i)
			wantCode(t, "AddMember("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("OKRemove", func(t *testing.T) {
		if err := f.db.RemoveMember(f.ctx, f.org.ID, m.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "RemoveMember(again)", f.db.RemoveMember(f.ctx, f.org.ID, m.ID), store.ECodeNotFound)
		_, err := f.db.FindMember(f.ctx, f.org.ID, m.ID)
		wantCode(t, "FindMember(removed)", err, store.ECodeNotFound)
	})
	t.Run("OKRenameOrganization", func(t *testing.T) {
		o, err := f.db.UpdateOrganization(f.ctx, f.org.ID, store.OrganizationUpdate{Name: ptr("Renamed")})
		if err != nil || o.Name != "Renamed" || o.Slug != f.org.Slug {
			t.Fatalf("UpdateOrganization = %+v, %v", o, err)
		}
		_, err = f.db.UpdateOrganization(f.ctx, f.org.ID, store.OrganizationUpdate{Name: ptr(" ")})
		wantCode(t, "UpdateOrganization(blank)", err, store.ECodeValidation)
		// The same name (after trimming) or no name changes nothing and
		// records nothing.
		for _, upd := range []store.OrganizationUpdate{{Name: ptr(" Renamed ")}, {}} {
			same, err := f.db.UpdateOrganization(f.ctx, f.org.ID, upd)
			if err != nil || same.Name != "Renamed" || !same.UpdatedAt.Equal(o.UpdatedAt) {
				t.Fatalf("UpdateOrganization(%+v) = %+v, %v; want it unchanged", upd, same, err)
			}
		}
		log, err := f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{Event: store.EventOrganizationUpdated})
		if err != nil || log.Total != 1 || log.Data[0].Metadata["name"] != "Renamed" {
			t.Fatalf("ListOrgAudit(organization.updated) = %+v, %v; want the one rename", log, err)
		}
	})
}

// testPlansInUse: a plan with live licenses cannot go; entitlements can,
// and leave the plans that named them.
func testPlansInUse(t *testing.T, open Opener) {
	f := newFixture(t, open)
	ent, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "export", Name: "Export"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Pro"), EntitlementIDs: &[]string{ent.ID}})
	if err != nil {
		t.Fatal(err)
	}
	unused, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Unused")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.GenerateLicenses(f.ctx, f.scope(store.EnvProduction), store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "DeletePlan(in use)", f.db.DeletePlan(f.ctx, f.ref(), plan.ID), store.ECodePlanInUse)
	// A plan whose licenses are all revoked or banned may go; the licenses
	// stay, readable, naming it.
	retired, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Retired")})
	if err != nil {
		t.Fatal(err)
	}
	final, err := f.db.GenerateLicenses(f.ctx, f.scope(store.EnvProduction), store.GenerateLicensesInput{PlanID: retired.ID, Quantity: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, status := range []string{store.LicenseRevoked, store.LicenseBanned} {
		if _, err := f.db.SetLicenseStatus(f.ctx, f.scope(store.EnvProduction), final[i].ID, status); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.db.DeletePlan(f.ctx, f.ref(), retired.ID); err != nil {
		t.Fatalf("DeletePlan(only final licenses): %v", err)
	}
	for _, l := range final {
		d, err := f.db.FindLicense(f.ctx, f.scope(store.EnvProduction), l.ID)
		if err != nil || d.PlanID != retired.ID {
			t.Fatalf("FindLicense of a deleted plan's license = %+v, %v; want it naming the plan", d, err)
		}
	}
	if err := f.db.DeletePlan(f.ctx, f.ref(), unused.ID); err != nil {
		t.Fatalf("DeletePlan(unused): %v", err)
	}
	_, err = f.db.FindPlan(f.ctx, f.ref(), unused.ID)
	wantCode(t, "FindPlan(deleted)", err, store.ECodeNotFound)
	if err := f.db.DeleteEntitlement(f.ctx, f.ref(), ent.ID); err != nil {
		t.Fatal(err)
	}
	p, err := f.db.FindPlan(f.ctx, f.ref(), plan.ID)
	if err != nil || len(p.Entitlements) != 0 {
		t.Fatalf("plan after its entitlement went = %+v, %v", p, err)
	}
	wantCode(t, "DeleteEntitlement(again)", f.db.DeleteEntitlement(f.ctx, f.ref(), ent.ID), store.ECodeNotFound)
	ents, err := f.db.ListEntitlements(f.ctx, f.ref())
	if err != nil || len(ents) != 0 {
		t.Fatalf("ListEntitlements = %+v, %v", ents, err)
	}
}

// testSecretsAndPeople: application secrets per environment; end-user and
// device calls on ids that name nothing; audit filter bounds.
func testSecretsAndPeople(t *testing.T, open Opener) {
	f := newFixture(t, open)
	env := f.app.Env(store.EnvDevelopment)
	sec, plain, err := f.db.CreateAppSecret(f.ctx, f.ref(), store.CreateSecretInput{EnvironmentID: env.ID, Label: "ci"})
	if err != nil || plain == "" || sec.EnvironmentID != env.ID {
		t.Fatalf("CreateAppSecret = %+v, %v", sec, err)
	}
	_, _, err = f.db.CreateAppSecret(f.ctx, f.ref(), store.CreateSecretInput{EnvironmentID: store.NewID()})
	wantCode(t, "CreateAppSecret(unknown environment)", err, store.ECodeValidation)
	if err := f.db.RevokeAppSecret(f.ctx, f.ref(), sec.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "RevokeAppSecret(unknown)", f.db.RevokeAppSecret(f.ctx, f.ref(), store.NewID()), store.ECodeNotFound)
	list, err := f.db.ListAppSecrets(f.ctx, f.ref())
	if err != nil || len(list) != 1 || list[0].RevokedAt == nil {
		t.Fatalf("ListAppSecrets = %+v, %v", list, err)
	}
	sc := f.scope(store.EnvProduction)
	users, err := f.db.ListEndUsers(f.ctx, sc, store.StatusFilter{})
	if err != nil || users.Total != 0 || users.Data == nil {
		t.Fatalf("ListEndUsers = %+v, %v", users, err)
	}
	_, err = f.db.SetEndUserStatus(f.ctx, sc, store.NewID(), store.UserBanned)
	wantCode(t, "SetEndUserStatus(unknown)", err, store.ECodeNotFound)
	_, err = f.db.SetDeviceStatus(f.ctx, sc, store.NewID(), store.DeviceBlocked)
	wantCode(t, "SetDeviceStatus(unknown)", err, store.ECodeNotFound)
	_, err = f.db.AddEndUserRole(f.ctx, f.org.ID, store.NewID(), "beta")
	wantCode(t, "AddEndUserRole(unknown)", err, store.ECodeNotFound)
	_, err = f.db.FindLicense(f.ctx, sc, store.NewID())
	wantCode(t, "FindLicense(unknown)", err, store.ECodeNotFound)
	from, to := f.clock.Now(), f.clock.Now().Add(-time.Hour)
	_, err = f.db.ListAudit(f.ctx, sc, store.AuditFilter{From: &from, To: &to})
	wantCode(t, "ListAudit(from after to)", err, store.ECodeValidation)
}

// testOrgAudit: what happens to the organization itself (members, API keys)
// is in its own audit log, not in an application's.
func testOrgAudit(t *testing.T, open Opener) {
	f := newFixture(t, open)
	if _, err := f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "audited@conformance.test", Password: Password, Role: store.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "audited"); err != nil {
		t.Fatal(err)
	}
	p, err := f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{Event: store.EventMemberAdded})
	if err != nil || p.Total != 1 || p.Data[0].Event != store.EventMemberAdded {
		t.Fatalf("ListOrgAudit(member.added) = %+v, %v", p, err)
	}
	all, err := f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{})
	if err != nil || all.Total < 2 || all.Data[0].Event != store.EventAPIKeyCreated {
		t.Fatalf("ListOrgAudit = %+v, %v; want the API key first", all, err)
	}
	app, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventMemberAdded})
	if err != nil || app.Total != 0 {
		t.Fatalf("member.added in the application's log = %+v, %v", app, err)
	}
	_, err = f.db.ListOrgAudit(f.ctx, store.NewID(), store.AuditFilter{})
	wantCode(t, "ListOrgAudit(unknown)", err, store.ECodeNotFound)
}

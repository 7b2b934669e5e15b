package storetest

import (
	"testing"

	"licensectl/store"
)

// testAuditByTarget: a license's history is its own entries only, in the
// organization log as in the application's; target_id does not combine
// with event.
func testAuditByTarget(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("History")}, 2)
	a, b := gen[0].ID, gen[1].ID
	for _, id := range []string{a, b} {
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, id, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("OKLicense", func(t *testing.T) {
		p, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: a})
		if err != nil || p.Total != 2 || len(p.Data) != 2 {
			t.Fatalf("ListAudit(target_id) = %+v, %v; want license.suspended and license.created", p, err)
		}
		for _, e := range p.Data {
			if e.Target.ID != a {
				t.Fatalf("ListAudit(target_id=%s) lists %+v", a, e)
			}
		}
		if p.Data[0].Event != store.EventLicenseSuspended || p.Data[1].Event != store.EventLicenseCreated {
			t.Fatalf("history newest first = %s, %s", p.Data[0].Event, p.Data[1].Event)
		}
		second, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: a, PageRequest: store.PageRequest{Page: 2, PerPage: 1}})
		if err != nil || second.Total != 2 || len(second.Data) != 1 || second.Data[0].Event != store.EventLicenseCreated {
			t.Fatalf("ListAudit(target_id, page 2) = %+v, %v", second, err)
		}
		none, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: store.NewID()})
		if err != nil || none.Total != 0 || len(none.Data) != 0 {
			t.Fatalf("ListAudit(unknown target) = %+v, %v", none, err)
		}
	})
	t.Run("OKOrganization", func(t *testing.T) {
		m, err := f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "history@conformance.test", Password: Password, Role: store.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{TargetID: m.ID})
		if err != nil || p.Total != 1 || p.Data[0].Event != store.EventMemberAdded || p.Data[0].Target.ID != m.ID {
			t.Fatalf("ListOrgAudit(target_id) = %+v, %v", p, err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: a, Event: store.EventLicenseSuspended})
		wantCode(t, "ListAudit(target_id and event)", err, store.ECodeValidation)
		_, err = f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{TargetID: a, Event: store.EventMemberAdded})
		wantCode(t, "ListOrgAudit(target_id and event)", err, store.ECodeValidation)
	})
}

// testSessionCounts: an activation opens one live session of the license
// and of the device; suspending the license revokes it.
func testSessionCounts(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Sessions")}, 1)
	lic := gen[0].ID
	want := func(what string, n int) {
		t.Helper()
		got, err := f.db.CountLicenseSessions(f.ctx, sc, lic)
		if err != nil || got != n {
			t.Fatalf("%s: CountLicenseSessions = %d, %v; want %d", what, got, err, n)
		}
	}
	want("before activation", 0)
	dev := f.activate(t, gen[0].Key, "conformance-sessions-1")
	t.Run("OK", func(t *testing.T) {
		want("after activation", 1)
		d, err := f.db.CountDeviceSessions(f.ctx, sc, dev.ID)
		if err != nil || d != 1 {
			t.Fatalf("CountDeviceSessions = %d, %v; want 1", d, err)
		}
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, lic, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
		want("after the suspension", 0)
		d, err = f.db.CountDeviceSessions(f.ctx, sc, dev.ID)
		if err != nil || d != 0 {
			t.Fatalf("CountDeviceSessions after the suspension = %d, %v; want 0", d, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.db.CountLicenseSessions(f.ctx, sc, store.NewID())
		wantCode(t, "CountLicenseSessions(unknown)", err, store.ECodeNotFound)
		_, err = f.db.CountDeviceSessions(f.ctx, sc, store.NewID())
		wantCode(t, "CountDeviceSessions(unknown)", err, store.ECodeNotFound)
		other := f.scope(store.EnvDevelopment)
		_, err = f.db.CountLicenseSessions(f.ctx, other, lic)
		wantCode(t, "CountLicenseSessions(other environment)", err, store.ECodeNotFound)
		_, err = f.db.CountDeviceSessions(f.ctx, other, dev.ID)
		wantCode(t, "CountDeviceSessions(other environment)", err, store.ECodeNotFound)
	})
	// A device activated on two licenses: each license counts and revokes
	// its own sessions only, and a reset takes the device's out of its count.
	t.Run("OKSharedDevice", func(t *testing.T) {
		_, two := f.licenses(t, store.PlanInput{Name: ptr("Shared"), MaxDevices: ptr(2)}, 2)
		a, b := two[0], two[1]
		count := func(what, lic string, n int) {
			t.Helper()
			got, err := f.db.CountLicenseSessions(f.ctx, sc, lic)
			if err != nil || got != n {
				t.Fatalf("%s: CountLicenseSessions = %d, %v; want %d", what, got, err, n)
			}
		}
		shared := f.activate(t, a.Key, "conformance-shared")
		f.activate(t, b.Key, "conformance-shared")
		f.activate(t, a.Key, "conformance-shared-a")
		f.activate(t, a.Key, "conformance-shared") // a second session on a
		count("a", a.ID, 3)
		count("b", b.ID, 1)
		if err := f.db.ResetLicenseDevice(f.ctx, sc, b.ID, shared.ID); err != nil {
			t.Fatal(err)
		}
		count("b after the reset", b.ID, 0)
		count("a after b's reset", a.ID, 3)
		f.activate(t, b.Key, "conformance-shared")
		count("b bound again", b.ID, 1)
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, a.ID, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
		count("a suspended", a.ID, 0)
		count("b after a's suspension", b.ID, 1)
		if d, err := f.db.CountDeviceSessions(f.ctx, sc, shared.ID); err != nil || d != 1 {
			t.Fatalf("CountDeviceSessions(shared) = %d, %v; want 1", d, err)
		}
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, a.ID, store.LicenseActive); err != nil {
			t.Fatal(err)
		}
		count("a reinstated", a.ID, 0)
	})
}

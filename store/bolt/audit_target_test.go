package bolt

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// targetHistory writes three entries for license a and two for b
// (created, suspended, reinstated; created, suspended), a clock tick apart.
func targetHistory(t *testing.T, e *env) (a, b string) {
	t.Helper()
	plan := e.mustPlan(t)
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 2})
	a, b = lics[0].ID, lics[1].ID
	for _, step := range []struct{ id, status string }{
		{a, store.LicenseSuspended}, {b, store.LicenseSuspended}, {a, store.LicenseActive},
	} {
		e.clock.advance(time.Second)
		if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, step.id, step.status); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

// wantHistory fails unless the target's page lists exactly events, newest first.
func wantHistory(t *testing.T, e *env, f store.AuditFilter, events ...string) {
	t.Helper()
	p, err := e.db.ListAudit(e.ctx, e.scope, f)
	if err != nil {
		t.Fatalf("ListAudit(%+v): %v", f, err)
	}
	var got []string
	for _, x := range p.Data {
		if x.Target.ID != f.TargetID {
			t.Fatalf("ListAudit(target %s) lists an entry of %s", f.TargetID, x.Target.ID)
		}
		got = append(got, x.Event)
	}
	if p.Total != len(events) || !slices.Equal(got, events) {
		t.Fatalf("ListAudit(%+v) = %d %q, want %q", f, p.Total, got, events)
	}
}

func TestAuditByTarget(t *testing.T) {
	e := newEnv(t)
	a, b := targetHistory(t, e)
	wantHistory(t, e, store.AuditFilter{TargetID: a}, store.EventLicenseReinstated, store.EventLicenseSuspended, store.EventLicenseCreated)
	wantHistory(t, e, store.AuditFilter{TargetID: b}, store.EventLicenseSuspended, store.EventLicenseCreated)
	wantHistory(t, e, store.AuditFilter{TargetID: store.NewID()})
	wantHistory(t, e, store.AuditFilter{TargetID: "not an id"})

	// Paged like the whole log; a time range keeps only the entries inside.
	p2, err := e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{TargetID: a, PageRequest: store.PageRequest{Page: 2, PerPage: 2}})
	if err != nil || p2.Total != 3 || len(p2.Data) != 1 || p2.Data[0].Event != store.EventLicenseCreated {
		t.Fatalf("page 2 of a's history = %+v, %v", p2, err)
	}
	from := e.clock.now().Add(-2500 * time.Millisecond)
	to := e.clock.now()
	wantHistory(t, e, store.AuditFilter{TargetID: a, From: &from, To: &to}, store.EventLicenseSuspended)

	// The other environment's log has no history for them.
	dev := e.scope
	dev.Env = store.EnvDevelopment
	if p, err := e.db.ListAudit(e.ctx, dev, store.AuditFilter{TargetID: a}); err != nil || p.Total != 0 {
		t.Fatalf("development history of a production license = %+v, %v", p, err)
	}

	_, err = e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{TargetID: a, Event: store.EventLicenseSuspended})
	if se, ok := err.(*store.Error); !ok || se.Code != store.ECodeValidation || se.Field != "target_id" {
		t.Fatalf("target_id with event = %v, want validation_failed on target_id", err)
	}

	// Organization-level entries have their own history, in the org log.
	org, err := e.db.ListOrgAudit(e.ctx, e.scope.OrgID, store.AuditFilter{TargetID: e.scope.OrgID})
	if err != nil || org.Total != 1 || org.Data[0].Event != store.EventOrganizationCreated {
		t.Fatalf("organization history = %+v, %v", org, err)
	}
}

// TestMigrateAuditByTarget: a version-3 file (entries written, no target
// index) opens at version 4 with every entry in its target's history.
func TestMigrateAuditByTarget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
	clock := &testClock{}
	clock.ns.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	open := func() *DB {
		db, err := Open(path, Options{Policies: store.Policies{Clock: clock.now, Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	org, err := db.CreateOrganization(t.Context(), store.CreateOrganizationInput{Name: "Org"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(t.Context(), store.CreateApplicationInput{OrgID: org.ID, Name: "App"})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, clock: clock, scope: store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}, ctx: t.Context()}
	a, b := targetHistory(t, e)

	// Make it what version 3 wrote: no audit_by_target, no counts of it,
	// licenses that hold their devices.
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		if err := licensesAsV5(tx); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bAuditTarget); err != nil {
			return err
		}
		c := tx.Bucket(bCounts).Cursor()
		pre := countKey(bAuditTarget, nil)
		for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Seek(pre) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(3))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	e.db = open()
	defer e.db.Close()
	// Version 4 first; the later ones follow.
	if got := e.db.Migrated(); len(got) != int(SchemaVersion-3) || got[0] != "4 audit by target, packed key index" {
		t.Fatalf("Migrated() = %q", got)
	}
	if v, err := e.db.StoredSchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v", v, err)
	}
	wantHistory(t, e, store.AuditFilter{TargetID: a}, store.EventLicenseReinstated, store.EventLicenseSuspended, store.EventLicenseCreated)
	wantHistory(t, e, store.AuditFilter{TargetID: b}, store.EventLicenseSuspended, store.EventLicenseCreated)
	org2, err := e.db.ListOrgAudit(e.ctx, org.ID, store.AuditFilter{TargetID: org.ID})
	if err != nil || org2.Total != 1 {
		t.Fatalf("organization history after migration = %+v, %v", org2, err)
	}
	// New entries join the backfilled history.
	clock.advance(time.Second)
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, b, store.LicenseActive); err != nil {
		t.Fatal(err)
	}
	wantHistory(t, e, store.AuditFilter{TargetID: b}, store.EventLicenseReinstated, store.EventLicenseSuspended, store.EventLicenseCreated)
}

// TestPruneAuditDropsTargetIndex: retention removes an entry's target
// index key with the entry; the index keeps no counts.
func TestPruneAuditDropsTargetIndex(t *testing.T) {
	e := newEnv(t)
	err := e.db.ConfigureBilling(store.BillingPolicy{Tiers: []store.Tier{{Key: "free", Name: "Free",
		MaxApplications: store.Unlimited, MaxLicenses: store.Unlimited, MaxRequestsPerMonth: store.Unlimited,
		AuditLogRetentionDays: 7, MaxDashboardMembers: store.Unlimited}}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := targetHistory(t, e)
	e.clock.advance(8 * 24 * time.Hour)
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, a, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	n, err := e.db.PruneAudit(e.ctx, 1000)
	if err != nil || n == 0 {
		t.Fatalf("PruneAudit = %d, %v", n, err)
	}
	wantHistory(t, e, store.AuditFilter{TargetID: a}, store.EventLicenseSuspended)
	err = e.db.bolt.View(func(tx *bbolt.Tx) error {
		if got := tx.Bucket(bAuditTarget).Stats().KeyN; got != 1 {
			t.Errorf("audit_by_target keeps %d keys, want 1", got)
		}
		c := tx.Bucket(bCounts).Cursor()
		pre := countKey(bAuditTarget, nil)
		if k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre) {
			t.Errorf("audit_by_target has a kept count: %x", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuditRangeBeyondNanoseconds: bounds outside what UnixNano holds
// (before 1970, after 2262) mean "before" and "after everything".
func TestAuditRangeBeyondNanoseconds(t *testing.T) {
	e := newEnv(t)
	e.mustGenerate(t, store.GenerateLicensesInput{PlanID: e.mustPlan(t).ID, Quantity: 2})
	all, err := e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{})
	if err != nil || all.Total == 0 {
		t.Fatalf("ListAudit = %+v, %v", all, err)
	}
	from, to := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{From: &from, To: &to})
	if err != nil || p.Total != all.Total {
		t.Fatalf("ListAudit(1900 to 2999) = %d entries, %v; want %d", p.Total, err, all.Total)
	}
}

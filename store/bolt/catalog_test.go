package bolt

import (
	"bytes"
	"context"
	"slices"

	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// fakeHasher keeps store tests fast; hashing itself is tested in store/password.
type fakeHasher struct{}

func (fakeHasher) Hash(_ context.Context, plain string) (string, error) { return "h:" + plain, nil }
func (fakeHasher) Verify(_ context.Context, plain, enc string) (bool, error) {
	return enc == "h:"+plain, nil
}

// testClock is a settable clock.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// env is a fresh store with one organization and application.
type env struct {
	db    *DB
	clock *testClock
	scope store.Scope
	ctx   context.Context
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	clock := &testClock{}
	clock.ns.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	db, err := Open(filepath.Join(tb.TempDir(), "test.db"), Options{Policies: store.Policies{Clock: clock.now, Hasher: fakeHasher{}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Org"})
	if err != nil {
		tb.Fatal(err)
	}
	a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "App"})
	if err != nil {
		tb.Fatal(err)
	}
	return &env{db: db, clock: clock, scope: store.Scope{OrgID: org.ID, AppID: a.ID, Env: store.EnvProduction}, ctx: ctx}
}

func (e *env) mustPlan(tb testing.TB) *store.Plan {
	tb.Helper()
	name := "Plan"
	p, err := e.db.CreatePlan(e.ctx, e.scope.App(), store.PlanInput{Name: &name})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func (e *env) mustGenerate(tb testing.TB, in store.GenerateLicensesInput) []*store.LicenseItem {
	tb.Helper()
	out, err := e.db.GenerateLicenses(e.ctx, e.scope, in)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkLicenseIndexes fails unless every license index and count agrees with
// the stored licenses of the scope's environment.
func (e *env) checkLicenseIndexes(t *testing.T) {
	t.Helper()
	err := e.db.view(e.ctx, func(tx *txn) error {
		app, en, err := tx.scope(e.scope)
		if err != nil {
			return err
		}
		envB := idb(en.ID)
		byStatus, byPlan, byPlanStatus, inUse := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
		ls, err := listAll[store.License](tx, bLicEnv, envB, bLicenses)
		if err != nil {
			return err
		}
		if got := tx.count(bLicEnv, envB); got != len(ls) {
			t.Errorf("env count %d, licenses %d", got, len(ls))
		}
		for _, l := range ls {
			byStatus[l.Status]++
			byPlan[l.PlanID]++
			byPlanStatus[l.PlanID+"/"+l.Status]++
			if tx.licenseByKey(l.Key) != l.ID {
				t.Errorf("key index misses %s", l.ID)
			}
		}
		for _, status := range store.LicenseStatus.Listed() {
			p := key(envB, str(status))
			if c, n := tx.count(bLicEnvStatus, p), len(tx.all(bLicEnvStatus, p)); c != byStatus[status] || n != byStatus[status] {
				t.Errorf("status %s: count %d, keys %d, licenses %d", status, c, n, byStatus[status])
			}
			for plan := range byPlan {
				p := key(envB, idb(plan), str(status))
				want := byPlanStatus[plan+"/"+status]
				if c, n := tx.count(bLicEnvPlanStatus, p), len(tx.all(bLicEnvPlanStatus, p)); c != want || n != want {
					t.Errorf("plan %s status %s: count %d, keys %d, licenses %d", plan, status, c, n, want)
				}
			}
		}
		// A plan's use spans both environments.
		c := tx.tx.Bucket(bLicenses).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			l := new(store.License)
			if err := decode(bLicenses, k, v, l); err != nil {
				return err
			}
			if slices.Contains(store.LicenseStatusesInUse, l.Status) {
				inUse[l.PlanID]++
			}
		}
		for plan, want := range byPlan {
			if c := tx.count(bLicEnvPlan, key(envB, idb(plan))); c != want {
				t.Errorf("plan %s: count %d, want %d", plan, c, want)
			}
			if c := tx.planInUse(app, plan); c != inUse[plan] {
				t.Errorf("plan %s in use: count %d, want %d", plan, c, inUse[plan])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLicenseIndexesStayInStep(t *testing.T) {
	e := newEnv(t)
	p1, p2 := e.mustPlan(t), e.mustPlan(t)
	exp := e.clock.now().Add(time.Hour)
	a := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p1.ID, Quantity: 30, ExpiresAt: &exp})
	b := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p2.ID, Quantity: 10})
	e.checkLicenseIndexes(t)
	for i, st := range []string{store.LicenseSuspended, store.LicenseRevoked, store.LicenseBanned, store.LicenseSuspended} {
		if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, a[i].ID, st); err != nil {
			t.Fatal(err)
		}
		if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, b[i].ID, st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, a[3].ID, store.LicenseActive); err != nil {
		t.Fatal(err)
	}
	e.checkLicenseIndexes(t)
	e.clock.advance(2 * time.Hour)
	n, err := e.db.ExpireLicenses(e.ctx)
	if err != nil || n != 27 { // 30 minus suspended, revoked, banned; a[3] was reinstated
		t.Fatalf("ExpireLicenses = %d, %v; want 27", n, err)
	}
	e.checkLicenseIndexes(t)
	page, err := e.db.ListLicenses(e.ctx, e.scope, store.LicenseFilter{Status: store.LicenseExpired, PlanID: p1.ID})
	if err != nil || page.Total != 27 {
		t.Fatalf("expired of plan 1 = %v, %v", page, err)
	}
}

func TestExpireLicensesBatchesAndStaleKeys(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	exp := e.clock.now().Add(time.Minute)
	e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.ExpireBatch * 2, ExpiresAt: &exp})
	e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 7, ExpiresAt: &exp})
	// A key whose license is gone (a purged application leaves these).
	stale := key(timeKey(exp), idb(store.NewID()))
	if err := e.db.update(e.ctx, func(t *txn) error { return t.tx.Bucket(bLicExpiry).Put(stale, []byte{}) }); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.ExpireLicenses(e.ctx); n != 0 {
		t.Fatalf("expired %d before their time", n)
	}
	e.clock.advance(time.Minute) // expires_at itself is expired: from is inclusive
	n, err := e.db.ExpireLicenses(e.ctx)
	if err != nil || n != store.ExpireBatch*2+7 {
		t.Fatalf("ExpireLicenses = %d, %v", n, err)
	}
	_ = e.db.view(e.ctx, func(tx *txn) error {
		if k, _ := tx.tx.Bucket(bLicExpiry).Cursor().First(); k != nil {
			t.Errorf("expiry index not empty: %x (stale %x)", k, stale)
		}
		return nil
	})
	e.checkLicenseIndexes(t)
}

func TestStatusChangesRevokeSessions(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 2})
	u, err := e.db.RegisterEndUser(e.ctx, e.scope, "a@example.com", "a long password 9")
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, "fp1")
	d2, _ := FixturesOf(e.db).EnsureDevice(e.ctx, e.scope, "fp2")
	seed := func(lic, dev, user string) string {
		sid, err := FixturesOf(e.db).SeedBinding(e.ctx, e.scope, lic, dev, user)
		if err != nil {
			t.Fatal(err)
		}
		return sid
	}
	reason := func(sid string) string {
		r, err := FixturesOf(e.db).SessionRevokeReason(e.ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	// Reset revokes the device's sessions on that license only.
	onL0, onL1 := seed(lics[0].ID, d1.ID, ""), seed(lics[1].ID, d1.ID, "")
	if err := e.db.ResetLicenseDevice(e.ctx, e.scope, lics[0].ID, d1.ID); err != nil {
		t.Fatal(err)
	}
	if reason(onL0) != store.RevokedDeviceReset || reason(onL1) != "" {
		t.Fatalf("after reset: %q, %q", reason(onL0), reason(onL1))
	}

	// Blocking a device revokes all its sessions, and no others.
	other := seed(lics[1].ID, d2.ID, "")
	if _, err := e.db.SetDeviceStatus(e.ctx, e.scope, d1.ID, store.DeviceBlocked); err != nil {
		t.Fatal(err)
	}
	if reason(onL1) != store.RevokedStatus || reason(other) != "" {
		t.Fatalf("after block: %q, %q", reason(onL1), reason(other))
	}

	// Disabling a user revokes the user's sessions.
	mine := seed(lics[0].ID, d2.ID, u.ID)
	if _, err := e.db.SetEndUserStatus(e.ctx, e.scope, u.ID, store.UserDisabled); err != nil {
		t.Fatal(err)
	}
	if reason(mine) != store.RevokedStatus || reason(other) != "" {
		t.Fatalf("after disable: %q, %q", reason(mine), reason(other))
	}

	// Revoking a license revokes its sessions; reinstating restores none.
	if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, lics[1].ID, store.LicenseRevoked); err != nil {
		t.Fatal(err)
	}
	if reason(other) != store.RevokedStatus {
		t.Fatalf("after revoke: %q", reason(other))
	}
	_, err = e.db.SetLicenseStatus(e.ctx, e.scope, lics[1].ID, store.LicenseSuspended)
	if store.ErrorCode(err) != store.ECodeTransition {
		t.Fatalf("revoked → suspended: %v", err)
	}
}

func TestDeleteEntitlementCleansUp(t *testing.T) {
	e := newEnv(t)
	ent, err := e.db.CreateEntitlement(e.ctx, e.scope.App(), store.CreateEntitlementInput{Key: "k", Name: "K"})
	if err != nil {
		t.Fatal(err)
	}
	name, entIDs := "P", []string{ent.ID}
	p, err := e.db.CreatePlan(e.ctx, e.scope.App(), store.PlanInput{Name: &name, EntitlementIDs: &entIDs})
	if err != nil {
		t.Fatal(err)
	}
	with := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, EntitlementIDs: entIDs, Quantity: 3})
	dev := e.scope
	dev.Env = store.EnvDevelopment
	if _, err := e.db.GenerateLicenses(e.ctx, dev, store.GenerateLicensesInput{PlanID: p.ID, EntitlementIDs: entIDs}); err != nil {
		t.Fatal(err)
	}
	e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 3})
	if err := e.db.DeleteEntitlement(e.ctx, e.scope.App(), ent.ID); err != nil {
		t.Fatal(err)
	}
	_ = e.db.view(e.ctx, func(tx *txn) error {
		c := tx.tx.Bucket(bLicenses).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if bytes.Contains(v, idb(ent.ID)) {
				t.Errorf("license %s still names the entitlement", ids(k))
			}
		}
		return nil
	})
	got, err := e.db.FindPlan(e.ctx, e.scope.App(), p.ID)
	if err != nil || len(got.EntitlementIDs) != 0 || len(got.Entitlements) != 0 {
		t.Fatalf("plan = %+v, %v", got, err)
	}
	d, err := e.db.FindLicense(e.ctx, e.scope, with[0].ID)
	if err != nil || len(d.Entitlements) != 0 {
		t.Fatalf("license = %+v, %v", d, err)
	}
	e.checkLicenseIndexes(t)
}

func TestGenerateIsOneTransaction(t *testing.T) {
	e := newEnv(t)
	p := e.mustPlan(t)
	bad := []string{store.NewID()}
	if _, err := e.db.GenerateLicenses(e.ctx, e.scope, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 5, EntitlementIDs: bad}); store.ErrorCode(err) != store.ECodeValidation {
		t.Fatalf("unknown entitlement: %v", err)
	}
	page, err := e.db.ListLicenses(e.ctx, e.scope, store.LicenseFilter{})
	if err != nil || page.Total != 0 {
		t.Fatalf("after a failed generation: %+v, %v", page, err)
	}
	audit, _ := e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{Event: "license.created"})
	if audit.Total != 0 {
		t.Fatalf("audit entries of a failed generation: %d", audit.Total)
	}
	e.mustGenerate(t, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 4})
	audit, _ = e.db.ListAudit(e.ctx, e.scope, store.AuditFilter{Event: "license.created"})
	if audit.Total != 4 {
		t.Fatalf("license.created entries = %d, want one per license", audit.Total)
	}
}

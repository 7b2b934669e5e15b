package storetest

import (
	"testing"
	"time"

	"licensectl/store"
)

// billingConfigurer is a store whose billing policy can be set again, as a
// server does when its configuration changes.
type billingConfigurer interface {
	ConfigureBilling(p store.BillingPolicy) error
}

// subscribe pays for the tier plan for the organization.
func (f *fixture) subscribe(t *testing.T, orgID, plan string) {
	t.Helper()
	c, err := f.db.BillingCheckout(f.ctx, store.CheckoutInput{OrgID: orgID, PlanKey: plan, CustomerPhone: "+5511987654321", CustomerDocument: "529.982.247-25"})
	if err != nil {
		t.Fatalf("BillingCheckout(%s): %v", plan, err)
	}
	if _, err := f.db.ConfirmBillingTransaction(f.ctx, c.TransactionID); err != nil {
		t.Fatalf("ConfirmBillingTransaction(%s): %v", plan, err)
	}
}

// auditTotal is the number of audit entries the scope lists.
func (f *fixture) auditTotal(t *testing.T, s store.Scope) int {
	t.Helper()
	p, err := f.db.ListAudit(f.ctx, s, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Total
}

// pruneAll runs the retention pass until it removes nothing, as the
// server does; no call removes more than batch entries and batch
// deliveries.
func (f *fixture) pruneAll(t *testing.T, batch int) {
	t.Helper()
	for {
		n, err := f.be.PruneAudit(f.ctx, batch)
		if err != nil || n > 2*batch {
			t.Fatalf("PruneAudit(batch %d) = %d, %v", batch, n, err)
		}
		if n == 0 {
			return
		}
	}
}

// testRetentionTiers: an organization's retention is the tier of its
// subscription's plan as the policy in force reads it: the first tier of a
// key, the default tier when the plan is no longer configured, and no
// removal at all for a tier that keeps its log for ever. Every store must
// decide it alike.
func testRetentionTiers(t *testing.T, open Opener) {
	policy := Billing(false) // free: 7 days, pro: for ever
	policy.Tiers = append(policy.Tiers,
		store.Tier{Key: "team", Name: "Team", PriceCents: 900, MaxApplications: store.Unlimited, MaxLicenses: store.Unlimited,
			MaxRequestsPerMonth: store.Unlimited, AuditLogRetentionDays: 30, MaxDashboardMembers: store.Unlimited},
		// A second tier of the key: the first is the one in force.
		store.Tier{Key: "team", Name: "Team again", PriceCents: 900, MaxApplications: store.Unlimited, MaxLicenses: store.Unlimited,
			MaxRequestsPerMonth: store.Unlimited, AuditLogRetentionDays: store.Unlimited, MaxDashboardMembers: store.Unlimited},
		store.Tier{Key: "legacy", Name: "Legacy", PriceCents: 1900, MaxApplications: store.Unlimited, MaxLicenses: store.Unlimited,
			MaxRequestsPerMonth: store.Unlimited, AuditLogRetentionDays: store.Unlimited, MaxDashboardMembers: store.Unlimited})
	f := newFixtureWith(t, open, policy) // f.org stays on the default tier
	type org struct {
		name, plan string
		scope      store.Scope
	}
	orgs := []*org{{name: "default tier"}, {name: "first team tier", plan: "team"},
		{name: "unconfigured legacy tier", plan: "legacy"}, {name: "pro tier", plan: "pro"}}
	orgs[0].scope = f.scope(store.EnvProduction)
	for _, o := range orgs[1:] {
		a, app := seedOrg(t, f.db, f.ctx)
		o.scope = store.Scope{OrgID: a.ID, AppID: app.ID, Env: store.EnvProduction}
		f.subscribe(t, a.ID, o.plan)
	}
	for _, o := range orgs {
		p, err := f.db.CreatePlan(f.ctx, store.AppRef{OrgID: o.scope.OrgID, AppID: o.scope.AppID}, store.PlanInput{Name: ptr("Audited")})
		if err != nil {
			t.Fatalf("%s: CreatePlan: %v", o.name, err)
		}
		if _, err := f.db.GenerateLicenses(f.ctx, o.scope, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 2}); err != nil {
			t.Fatalf("%s: GenerateLicenses: %v", o.name, err)
		}
	}
	// The legacy tier is no longer offered: its subscriber keeps the key,
	// and the default tier is the one in force.
	bc, ok := f.be.(billingConfigurer)
	if !ok {
		t.Fatal("the store cannot be configured again")
	}
	reconfigured := policy
	reconfigured.Tiers = policy.Tiers[:len(policy.Tiers)-1]
	if err := bc.ConfigureBilling(reconfigured); err != nil {
		t.Fatal(err)
	}
	start := f.clock.Now()
	before := map[*org]int{}
	for _, o := range orgs {
		if before[o] = f.auditTotal(t, o.scope); before[o] == 0 {
			t.Fatalf("%s: no audit entries to prune", o.name)
		}
	}
	for _, step := range []struct {
		after time.Duration
		gone  map[string]bool
	}{
		{6 * 24 * time.Hour, map[string]bool{}},
		{8 * 24 * time.Hour, map[string]bool{"default tier": true, "unconfigured legacy tier": true}},
		{29 * 24 * time.Hour, map[string]bool{"default tier": true, "unconfigured legacy tier": true}},
		{31 * 24 * time.Hour, map[string]bool{"default tier": true, "unconfigured legacy tier": true, "first team tier": true}},
	} {
		f.clock.Set(start.Add(step.after))
		f.pruneAll(t, 3)
		for _, o := range orgs {
			want := before[o]
			if step.gone[o.name] {
				want = 0
			}
			if got := f.auditTotal(t, o.scope); got != want {
				t.Errorf("%v on: the %s's entries = %d, want %d", step.after, o.name, got, want)
			}
		}
	}
}

// testRetentionPastKept: entries kept for ever at the head of the log do
// not stop the pass from reaching the expired entries behind them, however
// many there are against the batch.
func testRetentionPastKept(t *testing.T, open Opener) {
	f := newFixture(t, open) // free tier: 7 days
	keeper, keeperApp := seedOrg(t, f.db, f.ctx)
	f.subscribe(t, keeper.ID, "pro")
	keeperScope := store.Scope{OrgID: keeper.ID, AppID: keeperApp.ID, Env: store.EnvProduction}
	p, err := f.db.CreatePlan(f.ctx, keeperScope.App(), store.PlanInput{Name: ptr("Kept")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.GenerateLicenses(f.ctx, keeperScope, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 30}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	f.licenses(t, store.PlanInput{Name: ptr("Expiring")}, 2)
	sc := f.scope(store.EnvProduction)
	kept := f.auditTotal(t, keeperScope)
	if f.auditTotal(t, sc) == 0 || kept < 30 {
		t.Fatalf("audit entries before = %d and %d", f.auditTotal(t, sc), kept)
	}
	f.clock.Advance(8 * 24 * time.Hour)
	f.pruneAll(t, 2)
	if got := f.auditTotal(t, sc); got != 0 {
		t.Errorf("the default tier's entries behind %d kept ones = %d after pruning, want 0", kept, got)
	}
	if got := f.auditTotal(t, keeperScope); got != kept {
		t.Errorf("the unlimited tier's entries = %d after pruning, want %d", got, kept)
	}
}

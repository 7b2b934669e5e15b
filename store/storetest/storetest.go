// Package storetest is the conformance suite of store.Admin: the behaviour
// every implementation owes its callers, checked through the interface only
// (no bbolt, no SQL, no HTTP). store/bolt runs it on a file, server/client
// over HTTP against a real server; the coming PostgreSQL backend runs the
// very same suite.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/pix"
	"licensectl/store"
)

// Harness is one fresh, empty implementation under test.
type Harness struct {
	// Admin is the implementation the suite checks.
	Admin store.Admin
	// Backend is the store behind Admin (Admin itself for a store): the suite
	// seeds through it what no administrator creates, end-users and the
	// devices desktop clients activate.
	Backend store.Backend
	// Clock is the time of Backend (and of the server behind Admin): the
	// suite moves it and reads it, never the wall clock.
	Clock *Clock
	// Fixtures are Backend's test hooks; RunBackend certifies them too.
	Fixtures Fixtures
	// Dispatched: a webhook dispatcher works Backend's outbox (a running
	// server), so the outbox part, which drives it by hand, is left to the
	// store's own run.
	Dispatched bool
}

// Opener returns a fresh, empty implementation for one test whose store
// applies billing.
type Opener func(t *testing.T, billing store.BillingPolicy) Harness

// Billing is the policy the suite runs under: the free tier allows one
// application and three licenses, a paid tier exists, Pix is configured, and
// limits are enforced only where a test says so.
func Billing(enforce bool) store.BillingPolicy {
	return store.BillingPolicy{Enforce: enforce, GraceDays: 3,
		Payments: pix.Checkout{Key: "conformance@example.com", MerchantName: "Conformance", MerchantCity: "Sao Paulo"},
		Tiers: []store.Tier{
			{Key: "free", Name: "Free", MaxApplications: 1, MaxLicenses: 3, MaxRequestsPerMonth: 1000, AuditLogRetentionDays: 7, MaxDashboardMembers: 2},
			{Key: "pro", Name: "Pro", PriceCents: 4900, MaxApplications: store.Unlimited, MaxLicenses: store.Unlimited,
				MaxRequestsPerMonth: store.Unlimited, AuditLogRetentionDays: store.Unlimited, MaxDashboardMembers: store.Unlimited},
		}}
}

// Password is strong enough for every implementation's password policy.
const Password = "conformance suite password 42"

var seq atomic.Int64

// fixture is an organization with an application, for the tests below.
type fixture struct {
	db    store.Admin
	be    store.Backend
	clock *Clock
	fx    Fixtures
	org   *store.Organization
	app   *store.Application
	ctx   context.Context

	// dispatched is Harness.Dispatched.
	dispatched bool

	rtOnce sync.Once
	rt     store.RuntimeBackend // runtime, opened once
}

func (f *fixture) ref() store.AppRef { return store.AppRef{OrgID: f.org.ID, AppID: f.app.ID} }
func (f *fixture) scope(env string) store.Scope {
	return store.Scope{OrgID: f.org.ID, AppID: f.app.ID, Env: env}
}

func newFixture(t *testing.T, open Opener) *fixture {
	t.Helper()
	return newFixtureWith(t, open, Billing(false))
}

func newFixtureWith(t *testing.T, open Opener, billing store.BillingPolicy) *fixture {
	t.Helper()
	h := open(t, billing)
	if h.Clock == nil {
		t.Fatal("storetest: the harness has no Clock")
	}
	f := &fixture{db: h.Admin, be: h.Backend, clock: h.Clock, fx: h.Fixtures, dispatched: h.Dispatched, ctx: context.Background()}
	f.org, f.app = seedOrg(t, f.db, f.ctx)
	return f
}

// licenses creates a plan and generates n of its licenses in production.
func (f *fixture) licenses(t *testing.T, plan store.PlanInput, n int) (*store.Plan, []*store.LicenseItem) {
	t.Helper()
	p, err := f.db.CreatePlan(f.ctx, f.ref(), plan)
	if err != nil {
		t.Fatalf("CreatePlan: %v", err)
	}
	gen, err := f.db.GenerateLicenses(f.ctx, f.scope(store.EnvProduction), store.GenerateLicensesInput{PlanID: p.ID, Quantity: n})
	if err != nil || len(gen) != n {
		t.Fatalf("GenerateLicenses = %d, %v; want %d", len(gen), err, n)
	}
	return p, gen
}

// dated creates a plan and one license of it in production that expires at.
func (f *fixture) dated(t *testing.T, name string, at time.Time) *store.LicenseItem {
	t.Helper()
	p, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: &name})
	if err != nil {
		t.Fatalf("CreatePlan: %v", err)
	}
	gen, err := f.db.GenerateLicenses(f.ctx, f.scope(store.EnvProduction), store.GenerateLicensesInput{PlanID: p.ID, Quantity: 1, ExpiresAt: &at})
	if err != nil || len(gen) != 1 {
		t.Fatalf("GenerateLicenses(expiring) = %d, %v", len(gen), err)
	}
	return gen[0]
}

// seedOrg creates an organization with an owner and one application.
func seedOrg(t *testing.T, db store.Admin, ctx context.Context) (*store.Organization, *store.Application) {
	t.Helper()
	n := seq.Add(1)
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: fmt.Sprintf("Conformance %d", n),
		OwnerEmail: fmt.Sprintf("owner%d@conformance.test", n), OwnerPassword: Password})
	if err != nil {
		t.Fatalf("CreateOrganization: %v", err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Studio"})
	if err != nil {
		t.Fatalf("CreateApplication: %v", err)
	}
	return org, app
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := store.ErrorCode(err); got != code {
		t.Fatalf("%s: error %v (code %q), want %q", what, err, got, code)
	}
}

func ptr[T any](v T) *T { return &v }

// Run runs every part of the suite against open.
func Run(t *testing.T, open Opener) {
	t.Run("Organizations", func(t *testing.T) { testOrganizations(t, open) })
	t.Run("Applications", func(t *testing.T) { testApplications(t, open) })
	t.Run("Catalog", func(t *testing.T) { testCatalog(t, open) })
	t.Run("Licenses", func(t *testing.T) { testLicenses(t, open) })
	t.Run("AfterSale", func(t *testing.T) { testAfterSale(t, open) })
	t.Run("CursorPaging", func(t *testing.T) { testCursorPaging(t, open) })
	t.Run("Credentials", func(t *testing.T) { testCredentials(t, open) })
	t.Run("Members", func(t *testing.T) { testMembers(t, open) })
	t.Run("PlansInUse", func(t *testing.T) { testPlansInUse(t, open) })
	t.Run("SecretsAndPeople", func(t *testing.T) { testSecretsAndPeople(t, open) })
	t.Run("Billing", func(t *testing.T) { testBilling(t, open) })
	t.Run("Limits", func(t *testing.T) { testLimits(t, open) })
	t.Run("Checkout", func(t *testing.T) { testCheckout(t, open) })
	t.Run("EndUsers", func(t *testing.T) { testEndUsers(t, open) })
	t.Run("Devices", func(t *testing.T) { testDevices(t, open) })
	t.Run("LicenseDevices", func(t *testing.T) { testLicenseDevices(t, open) })
	t.Run("LicenseMachineFile", func(t *testing.T) { testLicenseMachineFile(t, open) })
	t.Run("Webhooks", func(t *testing.T) { testWebhooks(t, open) })
	t.Run("Outbox", func(t *testing.T) { testOutbox(t, open) })
	t.Run("OrgAudit", func(t *testing.T) { testOrgAudit(t, open) })
	t.Run("AuditByTarget", func(t *testing.T) { testAuditByTarget(t, open) })
	t.Run("SessionCounts", func(t *testing.T) { testSessionCounts(t, open) })
	t.Run("Isolation", func(t *testing.T) { testIsolation(t, open) })
	t.Run("ReadScopes", func(t *testing.T) { testReadScopes(t, open) })
	t.Run("LogReadScopes", func(t *testing.T) { testLogReadScopes(t, open) })
}

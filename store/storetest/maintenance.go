package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// RunBackend runs the parts of the suite for the rest of store.Backend:
// what only a server does with its store (the runtime API, accounts,
// credentials, maintenance). These methods are not remote, so only a store
// runs them (store/bolt, and the PostgreSQL store to come), each part on a
// fresh store whose Clock it moves. Run covers store.Admin, also over HTTP.
func RunBackend(t *testing.T, open Opener) {
	t.Run("Activation", func(t *testing.T) { testActivation(t, open) })
	t.Run("ActivationParallel", func(t *testing.T) { testActivationParallel(t, open) })
	t.Run("DeviceReset", func(t *testing.T) { testDeviceReset(t, open) })
	t.Run("ResetWindow", func(t *testing.T) { testResetWindow(t, open) })
	t.Run("ResetByID", func(t *testing.T) { testResetByID(t, open) })
	t.Run("SelfServiceDevices", func(t *testing.T) { testSelfServiceDevices(t, open) })
	t.Run("OrganizationSlugs", func(t *testing.T) { testOrganizationSlugs(t, open) })
	t.Run("Rebind", func(t *testing.T) { testRebind(t, open) })
	t.Run("RebindParallel", func(t *testing.T) { testRebindParallel(t, open) })
	t.Run("FloatingSeats", func(t *testing.T) { testFloatingSeats(t, open) })
	t.Run("SeatsEndedByStatus", func(t *testing.T) { testSeatsEndedByStatus(t, open) })
	t.Run("MachineFile", func(t *testing.T) { testMachineFile(t, open) })
	t.Run("Replay", func(t *testing.T) { testReplay(t, open) })
	t.Run("RuntimeLogin", func(t *testing.T) { testRuntimeLogin(t, open) })
	t.Run("Refresh", func(t *testing.T) { testRefresh(t, open) })
	t.Run("RefreshParallel", func(t *testing.T) { testRefreshParallel(t, open) })
	t.Run("Cascade", func(t *testing.T) { testCascade(t, open) })
	t.Run("Logout", func(t *testing.T) { testLogout(t, open) })
	t.Run("RuntimeHousekeeping", func(t *testing.T) { testRuntimeHousekeeping(t, open) })
	t.Run("RuntimeRequests", func(t *testing.T) { testRuntimeRequests(t, open) })
	t.Run("Signup", func(t *testing.T) { testSignup(t, open) })
	t.Run("DashboardLogin", func(t *testing.T) { testDashboardLogin(t, open) })
	t.Run("MailTokens", func(t *testing.T) { testMailTokens(t, open) })
	t.Run("Portal", func(t *testing.T) { testPortal(t, open) })
	t.Run("PasswordReset", func(t *testing.T) { testPasswordReset(t, open) })
	t.Run("Challenges", func(t *testing.T) { testChallenges(t, open) })
	t.Run("Partners", func(t *testing.T) { testPartners(t, open) })
	t.Run("Onboarding", func(t *testing.T) { testOnboarding(t, open) })
	t.Run("Authenticate", func(t *testing.T) { testAuthenticate(t, open) })
	t.Run("EndUserAccounts", func(t *testing.T) { testEndUserAccounts(t, open) })
	t.Run("BillingPasses", func(t *testing.T) { testBillingPasses(t, open) })
	t.Run("PaymentCallbacks", func(t *testing.T) { testPaymentCallbacks(t, open) })
	t.Run("ExpireLicenses", func(t *testing.T) { testExpireLicenses(t, open) })
	t.Run("Retention", func(t *testing.T) { testRetention(t, open) })
	t.Run("RetentionTiers", func(t *testing.T) { testRetentionTiers(t, open) })
	t.Run("RetentionPastKept", func(t *testing.T) { testRetentionPastKept(t, open) })
	t.Run("Fixtures", func(t *testing.T) { testFixtures(t, open) })
	t.Run("Counters", func(t *testing.T) { testCounters(t, open) })
	t.Run("Maintenance", func(t *testing.T) { testMaintenance(t, open) })
	t.Run("OperatorToken", func(t *testing.T) { testOperatorToken(t, open) })
	t.Run("Storable", func(t *testing.T) { testStorable(t, open) })
}

// testOperatorToken: the operator token's hash is kept by the store and
// swapped only from the hash the caller read, so that of servers
// initialising one empty store exactly one stores its token, and a rotation
// that raced another is refused rather than lost (docs/design.md §12).
func testOperatorToken(t *testing.T, open Opener) {
	be := open(t, Billing(false)).Backend
	ctx := context.Background()
	want := func(label, h string) {
		t.Helper()
		got, err := be.OperatorTokenHash(ctx)
		if err != nil || got != h {
			t.Fatalf("%s: OperatorTokenHash = %q, %v; want %q", label, got, err, h)
		}
	}
	swap := func(old, h string, ok bool) {
		t.Helper()
		got, err := be.SwapOperatorTokenHash(ctx, old, h)
		if err != nil || got != ok {
			t.Fatalf("SwapOperatorTokenHash(%q, %q) = %v, %v; want %v", old, h, got, err, ok)
		}
	}
	want("a new store", "")
	a, b := store.HashSecret("op_a"), store.HashSecret("op_b")
	// Ten servers start on one empty store: one token wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := be.SwapOperatorTokenHash(ctx, "", store.HashSecret(fmt.Sprint("op_", i)))
			if err != nil {
				t.Errorf("SwapOperatorTokenHash: %v", err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d of 10 initialisations stored their token; want exactly 1", wins.Load())
	}
	won, err := be.OperatorTokenHash(ctx)
	if err != nil || won == "" {
		t.Fatalf("OperatorTokenHash after the race = %q, %v", won, err)
	}
	swap("", a, false)
	swap(b, a, false)
	want("after refused swaps", won)
	swap(won, a, true)
	want("after a rotation", a)
	swap(won, b, false)
	swap(a, b, true)
	want("after a second rotation", b)
	swap(a, "", false)
	swap(b, "", true)
	want("after removal", "")
	swap("", a, true)
	want("after a new initialisation", a)
}

// testRuntimeHousekeeping: what the runtime's workers do: resolve
// applications, write last-seen times, sweep sessions past their lifetime.
func testRuntimeHousekeeping(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	t.Run("ResolveApp", func(t *testing.T) {
		dev := f.app.Env(store.EnvDevelopment)
		for name, c := range map[string]store.RuntimeClient{
			"by id": f.client(store.EnvDevelopment), "by public key": {PublicKey: dev.PublicKey},
		} {
			ra, err := f.runtime().ResolveApp(f.ctx, c)
			if err != nil || ra.App.ID != f.app.ID || ra.Env.ID != dev.ID {
				t.Fatalf("ResolveApp(%s) = %+v, %v", name, ra, err)
			}
		}
		ra, err := f.runtime().ResolveApp(f.ctx, f.client(""))
		if err != nil || ra.Env.Name != store.EnvProduction {
			t.Fatalf("ResolveApp(no environment) = %+v, %v; want production", ra, err)
		}
		_, err = f.runtime().ResolveApp(f.ctx, f.client("staging"))
		wantCode(t, "ResolveApp(bad environment)", err, store.ECodeValidation)
		for name, c := range map[string]store.RuntimeClient{"unknown id": {AppID: store.NewID()}, "unknown key": {PublicKey: "pk_unknown"}} {
			_, err := f.runtime().ResolveApp(f.ctx, c)
			wantCode(t, "ResolveApp("+name+")", err, store.ECodeInvalidApp)
		}
	})
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Kept")}, 1)
	a := f.activation(t, gen[0].Key, "seen-pc")
	t.Run("FlushSeen", func(t *testing.T) {
		f.wantReason(t, "a fresh session", a.AccessToken, "")
		if n, err := f.runtime().FlushSeen(f.ctx); err != nil || n != 0 {
			t.Fatalf("FlushSeen just after the activation = %d, %v; want 0", n, err)
		}
		f.clock.Advance(6 * time.Minute) // past the 5 minute default
		f.wantReason(t, "a session seen again", a.AccessToken, "")
		if n, err := f.runtime().FlushSeen(f.ctx); err != nil || n != 1 {
			t.Fatalf("FlushSeen = %d, %v; want 1", n, err)
		}
		p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{Fingerprint: "seen-pc"})
		if err != nil || p.Total != 1 || p.Data[0].LastSeenAt == nil || !p.Data[0].LastSeenAt.Equal(f.clock.Now()) {
			t.Fatalf("the device after FlushSeen = %+v, %v; want last seen %v", p, err, f.clock.Now())
		}
		if n, err := f.runtime().FlushSeen(f.ctx); err != nil || n != 0 {
			t.Fatalf("FlushSeen again = %d, %v; want 0", n, err)
		}
	})
	t.Run("SweepSessions", func(t *testing.T) {
		f.activation(t, gen[0].Key, "seen-pc")
		if n, err := f.runtime().SweepSessions(f.ctx, 10); err != nil || n != 0 {
			t.Fatalf("SweepSessions of live sessions = %d, %v; want 0", n, err)
		}
		f.clock.Advance(refreshAbsTTL)
		if n, err := f.runtime().SweepSessions(f.ctx, 1); err != nil || n != 1 {
			t.Fatalf("SweepSessions(limit 1) = %d, %v; want 1", n, err)
		}
		if n, err := f.runtime().SweepSessions(f.ctx, 10); err != nil || n != 1 {
			t.Fatalf("SweepSessions(the rest) = %d, %v; want 1", n, err)
		}
		f.wantReason(t, "a swept session", a.AccessToken, store.ReasonTokenInvalid)
		if n, err := f.db.CountLicenseSessions(f.ctx, sc, gen[0].ID); err != nil || n != 0 {
			t.Fatalf("CountLicenseSessions after the sweep = %d, %v", n, err)
		}
	})
	t.Run("FlushSeenNeverGoesBack", func(t *testing.T) {
		// Two servers saw the device: the one that saw it last flushes
		// first, and the other's older time does not replace it.
		_, lics := f.licenses(t, store.PlanInput{Name: ptr("Seen Twice")}, 1)
		s := f.activation(t, lics[0].Key, "seen-twice")
		early, late := f.be.OpenRuntime(runtimeOptions()), f.be.OpenRuntime(runtimeOptions())
		validate := func(rt store.RuntimeBackend) {
			t.Helper()
			if v, err := rt.Validate(f.ctx, f.client(""), s.AccessToken); err != nil || !v.Valid {
				t.Fatalf("Validate = %+v, %v", v, err)
			}
		}
		f.clock.Advance(6 * time.Minute)
		validate(early)
		f.clock.Advance(6 * time.Minute)
		validate(late)
		want := f.clock.Now()
		for _, rt := range []store.RuntimeBackend{late, early} {
			if n, err := rt.FlushSeen(f.ctx); err != nil || n != 1 {
				t.Fatalf("FlushSeen = %d, %v; want 1", n, err)
			}
		}
		p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{Fingerprint: "seen-twice"})
		if err != nil || p.Total != 1 || p.Data[0].LastSeenAt == nil || !p.Data[0].LastSeenAt.Equal(want) {
			t.Fatalf("the device after both flushes = %+v, %v; want last seen %v", p, err, want)
		}
	})
}

// testRuntimeRequests: the per-organization runtime request counter, per
// UTC month, and the tier's monthly limit.
func testRuntimeRequests(t *testing.T, open Opener) {
	f := newFixtureWith(t, open, Billing(true))
	rt := f.runtime()
	now := f.clock.Now()
	for _, n := range []int64{3, 2} {
		if err := rt.AddRuntimeRequests(f.ctx, now, map[string]int64{f.org.ID: n}); err != nil {
			t.Fatal(err)
		}
	}
	next := store.MonthStart(now).AddDate(0, 1, 0)
	if err := rt.AddRuntimeRequests(f.ctx, next, map[string]int64{f.org.ID: 7}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Time
		org  string
		want int64
	}{{now, f.org.ID, 5}, {next, f.org.ID, 7}, {next.AddDate(0, 1, 0), f.org.ID, 0}, {now, store.NewID(), 0}, {now, "not-an-id", 0}} {
		if got, err := rt.RuntimeRequests(f.ctx, c.org, c.at); err != nil || got != c.want {
			t.Fatalf("RuntimeRequests(%s) = %d, %v; want %d", store.MonthKey(c.at), got, err, c.want)
		}
	}
	if u, err := f.db.BillingUsage(f.ctx, f.org.ID, now); err != nil || u.RuntimeRequests.Current != 5 || u.RuntimeRequests.Limit != 1000 {
		t.Fatalf("BillingUsage = %+v, %v; want 5 of 1000 requests", u, err)
	}
	if n, err := f.be.MonthlyRequestLimit(f.ctx, f.org.ID); err != nil || n != 1000 {
		t.Fatalf("MonthlyRequestLimit(enforced) = %d, %v; want the free tier's 1000", n, err)
	}
	_, err := f.be.MonthlyRequestLimit(f.ctx, store.NewID())
	wantCode(t, "MonthlyRequestLimit(unknown)", err, store.ECodeNotFound)
	g := newFixture(t, open)
	if n, err := g.be.MonthlyRequestLimit(g.ctx, g.org.ID); err != nil || n != store.Unlimited {
		t.Fatalf("MonthlyRequestLimit(not enforced) = %d, %v; want unlimited", n, err)
	}
}

// testBillingPasses: a paid period ends in past_due, the grace in the
// default tier; a checkout left unpaid past its lifetime expires.
// testPaymentCallbacks: a provider's notice confirms only the full amount
// (docs/design.md §10); any other amount changes nothing, even after payment.
func testPaymentCallbacks(t *testing.T, open Opener) {
	f := newFixture(t, open)
	c, err := f.db.BillingCheckout(f.ctx, store.CheckoutInput{OrgID: f.org.ID, PlanKey: "pro", CustomerPhone: "+5511987654321", CustomerDocument: "529.982.247-25"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.be.ConfirmBillingPayment(f.ctx, store.NewID(), c.AmountCents)
	wantCode(t, "ConfirmBillingPayment(unknown)", err, store.ECodeNotFound)
	for _, amount := range []int64{0, c.AmountCents - 1, c.AmountCents + 1, -c.AmountCents} {
		_, err := f.be.ConfirmBillingPayment(f.ctx, c.TransactionID, amount)
		wantCode(t, fmt.Sprintf("ConfirmBillingPayment(%d of %d)", amount, c.AmountCents), err, store.ECodeValidation)
	}
	if s, err := f.db.BillingSubscription(f.ctx, f.org.ID); err != nil || s.Plan.Key == "pro" {
		t.Fatalf("subscription after refused amounts = %+v, %v", s, err)
	}
	for range 2 {
		s, err := f.be.ConfirmBillingPayment(f.ctx, c.TransactionID, c.AmountCents)
		if err != nil || s.Plan.Key != "pro" || s.Status != store.SubscriptionActive {
			t.Fatalf("ConfirmBillingPayment(full amount) = %+v, %v", s, err)
		}
	}
	_, err = f.be.ConfirmBillingPayment(f.ctx, c.TransactionID, c.AmountCents-1)
	wantCode(t, "ConfirmBillingPayment(partial, after payment)", err, store.ECodeValidation)
}

func testBillingPasses(t *testing.T, open Opener) {
	f := newFixture(t, open)
	in := store.CheckoutInput{OrgID: f.org.ID, PlanKey: "pro", CustomerPhone: "+5511987654321", CustomerDocument: "529.982.247-25"}
	sweep := func(what string, want ...string) {
		t.Helper()
		got, err := f.be.SweepBilling(f.ctx)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: SweepBilling = %q, %v; want %q", what, got, err, want)
		}
	}
	wantSub := func(what, status, plan string) {
		t.Helper()
		s, err := f.db.BillingSubscription(f.ctx, f.org.ID)
		if err != nil || s.Status != status || s.Plan.Key != plan {
			t.Fatalf("%s: BillingSubscription = %+v, %v; want %s on %s", what, s, err, status, plan)
		}
	}
	t.Run("TransactionExpires", func(t *testing.T) {
		c, err := f.db.BillingCheckout(f.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(store.CheckoutLifetime - time.Second)
		sweep("a pending checkout")
		f.clock.Advance(time.Second)
		sweep("an expired checkout") // no subscription changed
		_, err = f.db.ConfirmBillingTransaction(f.ctx, c.TransactionID)
		wantCode(t, "ConfirmBillingTransaction(expired)", err, store.ECodeTransition)
		wantSub("after an expired checkout", store.SubscriptionActive, "free")
	})
	t.Run("PeriodAndGrace", func(t *testing.T) {
		c, err := f.db.BillingCheckout(f.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := f.db.ConfirmBillingTransaction(f.ctx, c.TransactionID)
		if err != nil || sub.CurrentPeriodEnd == nil || !sub.CurrentPeriodEnd.Equal(f.clock.Now().Add(store.PaidPeriod)) {
			t.Fatalf("ConfirmBillingTransaction = %+v, %v; want a period of %v", sub, err, store.PaidPeriod)
		}
		f.clock.Advance(store.PaidPeriod - time.Second)
		sweep("within the paid period")
		wantSub("within the paid period", store.SubscriptionActive, "pro")
		f.clock.Advance(time.Second)
		sweep("at the end of the paid period", f.org.ID)
		wantSub("at the end of the paid period", store.SubscriptionPastDue, "pro")
		sweep("past due, within the grace")
		f.clock.Advance(3 * 24 * time.Hour) // Billing's GraceDays
		sweep("at the end of the grace", f.org.ID)
		wantSub("after the grace", store.SubscriptionActive, "free")
		sweep("on the default tier")
	})
}

// testExpireLicenses: lapsed licenses are stored expired, once, with their
// audit entry; licenses without expiry stay.
func testExpireLicenses(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, daily := f.licenses(t, store.PlanInput{Name: ptr("Day"), DurationDays: ptr(ptr(1))}, 2)
	f.activation(t, daily[0].Key, "expire-pc") // expires a day after activation; daily[1] never starts
	dated := f.dated(t, "Dated", f.clock.Now().Add(time.Hour))
	expire := func(what string, want int) {
		t.Helper()
		if n, err := f.be.ExpireLicenses(f.ctx); err != nil || n != want {
			t.Fatalf("%s: ExpireLicenses = %d, %v; want %d", what, n, err, want)
		}
	}
	expire("nothing lapsed", 0)
	f.clock.Advance(time.Hour)
	expire("the dated license lapsed", 1)
	f.clock.Advance(24 * time.Hour)
	expire("the activated license lapsed", 1)
	expire("again", 0)
	for id, want := range map[string]string{dated.ID: store.LicenseExpired, daily[0].ID: store.LicenseExpired, daily[1].ID: store.LicenseInactive} {
		l, err := f.db.FindLicense(f.ctx, sc, id)
		if err != nil || l.Status != want {
			t.Fatalf("FindLicense(%s) = %+v, %v; want stored %s", id, l, err, want)
		}
	}
	audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLicenseExpired})
	if err != nil || audit.Total != 2 {
		t.Fatalf("license.expired entries = %+v, %v; want 2", audit, err)
	}
	list, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Status: store.LicenseExpired})
	if err != nil || list.Total != 2 {
		t.Fatalf("ListLicenses(expired) = %+v, %v; want 2", list, err)
	}
}

// testRetention: audit entries older than the tier's retention go, in
// batches; an unlimited tier keeps everything.
func testRetention(t *testing.T, open Opener) {
	f := newFixture(t, open) // free tier: 7 days
	keeper, keeperApp := seedOrg(t, f.db, f.ctx)
	f.subscribe(t, keeper.ID, "pro")
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Audited")}, 3)
	count := func(s store.Scope) int { return f.auditTotal(t, s) }
	keeperScope := store.Scope{OrgID: keeper.ID, AppID: keeperApp.ID, Env: store.EnvProduction}
	old, kept := count(sc), count(keeperScope)
	if old < 3 || kept == 0 {
		t.Fatalf("audit entries before = %d and %d", old, kept)
	}
	if n, err := f.be.PruneAudit(f.ctx, 100); err != nil || n != 0 {
		t.Fatalf("PruneAudit of recent entries = %d, %v; want 0", n, err)
	}
	f.clock.Advance(7*24*time.Hour + time.Second)
	if _, err := f.db.SetLicenseStatus(f.ctx, sc, gen[0].ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	total := 0
	for {
		n, err := f.be.PruneAudit(f.ctx, 2)
		if err != nil || n > 2 {
			t.Fatalf("PruneAudit(batch 2) = %d, %v", n, err)
		}
		if n == 0 {
			break
		}
		total += n
	}
	if total < old {
		t.Fatalf("PruneAudit removed %d entries, want at least the application's %d", total, old)
	}
	p, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{})
	if err != nil || p.Total != 1 || p.Data[0].Event != store.EventLicenseSuspended {
		t.Fatalf("audit after pruning = %+v, %v; want only the recent suspension", p, err)
	}
	if got := count(keeperScope); got != kept {
		t.Fatalf("the unlimited tier's entries = %d after pruning, want %d", got, kept)
	}
}

// testMaintenance: the store's health, backup, kept secrets and stats, and
// its release.
func testMaintenance(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Counted")}, 1)
	f.activation(t, gen[0].Key, "stats-pc")
	if err := f.be.Ping(f.ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	// A store kept in one file streams it; others are backed up by their
	// database's tools (store.FileBackup is optional).
	if fb, ok := f.be.(store.FileBackup); ok {
		var buf bytes.Buffer
		if n, err := fb.Backup(f.ctx, &buf); err != nil || n <= 0 || n != int64(buf.Len()) {
			t.Fatalf("Backup = %d, %v; wrote %d bytes", n, err, buf.Len())
		}
	}
	calls := 0
	gen1 := func() ([]byte, error) { calls++; return []byte("kept secret"), nil }
	for range 2 {
		v, err := f.be.MetaSecret("conformance", gen1)
		if err != nil || string(v) != "kept secret" || calls != 1 {
			t.Fatalf("MetaSecret = %q, %v after %d generations; want one", v, err, calls)
		}
	}
	boom := errors.New("no entropy")
	if _, err := f.be.MetaSecret("failing", func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("MetaSecret(failing generator) = %v, want %v", err, boom)
	}
	st, err := f.be.Stats(f.ctx)
	if err != nil || st.SizeBytes <= 0 || st.Sessions != 1 {
		t.Fatalf("Stats = %+v, %v; want a size and 1 session", st, err)
	}
	if err := f.be.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := f.be.Ping(f.ctx); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

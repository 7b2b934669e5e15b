package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/postgres/pgtest"
)

// The outbox across servers (docs/design.md §12): two *DB on one database
// stand for two servers. The application is seeded with SQL, so that these
// tests need nothing of the catalog.

// hookServers opens n servers on one new database with one application.
func hookServers(t *testing.T, n int) ([]*DB, store.AppRef) {
	t.Helper()
	u := pgtest.URL(t)
	ctx := context.Background()
	var dbs []*DB
	for range n {
		db, err := Open(ctx, Options{URL: u, Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	a := &store.Application{ID: store.NewID(), OrgID: billingOrg(t, dbs[0], now), Name: "Hooked", Slug: "hooked", Status: "active", CreatedAt: now, UpdatedAt: now,
		Environments: []store.Environment{{ID: store.NewID(), Name: store.EnvDevelopment, PublicKey: store.NewID()}, {ID: store.NewID(), Name: store.EnvProduction, PublicKey: store.NewID()}}}
	err := dbs[0].update(ctx, func(t *txn) error { return t.saveApp(a, true) })
	if err != nil {
		t.Fatal(err)
	}
	return dbs, store.AppRef{OrgID: a.OrgID, AppID: a.ID}
}

// hookPlanEvents commits n plan.created events of ref's application, each in
// its own transaction, as n changes would.
func hookPlanEvents(t *testing.T, db *DB, ref store.AppRef, n int) {
	t.Helper()
	for range n {
		err := db.update(context.Background(), func(t *txn) error {
			a, err := t.app(ref)
			if err != nil {
				return err
			}
			return t.audit(auditEvent{Event: store.EventPlanCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
				Target: store.Target{Type: "plan", ID: store.NewID()}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func mustHook(t *testing.T, db *DB, ref store.AppRef, events ...string) *store.Webhook {
	t.Helper()
	h, err := db.CreateWebhook(context.Background(), ref, "https://example.com/hook", events)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func expandHooks(t *testing.T, db *DB) {
	t.Helper()
	for {
		n, err := db.ExpandEvents(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func hookClaim(owner string, limit int) store.Claim {
	return store.Claim{Owner: owner, Limit: limit, PerEndpoint: 2, PerApp: 100, Lease: time.Minute}
}

func hookDeliveries(t *testing.T, db *DB, ref store.AppRef, hookID, status string) []*store.Delivery {
	t.Helper()
	p, err := db.ListDeliveries(context.Background(), ref, hookID, store.DeliveryFilter{Status: status, PageRequest: store.PageRequest{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

// TestOutboxTwoServersSendOnce: two servers expand and claim the same
// outbox at once, each with several dispatchers: 20 events give 20
// deliveries, each sent exactly once, and the endpoint never has more than
// two sends in flight over both servers.
func TestOutboxTwoServersSendOnce(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	hook := mustHook(t, dbs[0], ref, "plan.*")
	expandHooks(t, dbs[0]) // nothing hears webhook.created
	hookPlanEvents(t, dbs[0], ref, 10)
	hookPlanEvents(t, dbs[1], ref, 10)
	ctx := context.Background()
	var mu sync.Mutex
	sent := map[string]int{}
	var inflight, most atomic.Int32
	var delivered atomic.Int32
	var wg sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	errs := make(chan error, 8)
	for s, db := range dbs {
		for d := range 3 {
			owner := fmt.Sprintf("server%d-dispatcher%d", s, d)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for delivered.Load() < 20 && time.Now().Before(deadline) {
					if _, err := db.ExpandEvents(ctx, 3); err != nil {
						errs <- err
						return
					}
					jobs, err := db.ClaimDue(ctx, time.Now(), hookClaim(owner, 4))
					if err != nil {
						errs <- err
						return
					}
					for _, j := range jobs {
						if n := inflight.Add(1); n > most.Load() {
							most.Store(n)
						}
						mu.Lock()
						sent[j.Delivery.ID]++
						mu.Unlock()
						time.Sleep(2 * time.Millisecond) // the send
						inflight.Add(-1)                 // before the record ends the lease
						if err := db.RecordAttempt(ctx, j.Delivery.ID, store.Attempt{Status: 204, At: time.Now()}, store.RetryPolicy{}); err != nil {
							errs <- err
							return
						}
						delivered.Add(1)
					}
					if len(jobs) == 0 {
						time.Sleep(time.Millisecond)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(sent) != 20 {
		t.Fatalf("%d deliveries sent, want 20", len(sent))
	}
	for id, n := range sent {
		if n != 1 {
			t.Fatalf("delivery %s sent %d times", id, n)
		}
	}
	if m := most.Load(); m > 2 {
		t.Fatalf("%d sends in flight to one endpoint over two servers, the bound is 2", m)
	}
	if got := hookDeliveries(t, dbs[1], ref, hook.ID, store.DeliveryDelivered); len(got) != 20 {
		t.Fatalf("%d deliveries delivered, want 20", len(got))
	}
	if n, _, err := dbs[0].OutboxStats(ctx); err != nil || n != 0 {
		t.Fatalf("OutboxStats after = %d, %v", n, err)
	}
}

// TestOutboxExpandOnce: servers expanding the same events at once expand
// each exactly once.
func TestOutboxExpandOnce(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	hooks := []*store.Webhook{mustHook(t, dbs[0], ref, "plan.*"), mustHook(t, dbs[0], ref, "plan.created")}
	hookPlanEvents(t, dbs[0], ref, 60)
	var wg sync.WaitGroup
	var expanded atomic.Int32
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, err := dbs[i%2].ExpandEvents(context.Background(), 7)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
				expanded.Add(int32(n))
			}
		}()
	}
	wg.Wait()
	if n := expanded.Load(); n != 60 {
		t.Fatalf("the servers report %d events expanded, want 60", n)
	}
	for _, h := range hooks {
		if got := hookDeliveries(t, dbs[1], ref, h.ID, ""); len(got) != 60 {
			t.Fatalf("endpoint %s has %d deliveries, want 60", h.ID, len(got))
		}
	}
}

// TestOutboxDeadServer: a server claims and dies without recording; while
// its leases hold, the other server gets nothing of the endpoint (the cap
// counts them); after them, it claims the same deliveries, under the same
// ids. The dead server's late record is settled as a stale claim: recorded,
// and the delivery is not handed out again.
func TestOutboxDeadServer(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	alive, dead := dbs[0], dbs[1]
	hook := mustHook(t, alive, ref, "plan.created")
	hookPlanEvents(t, alive, ref, 3)
	expandHooks(t, alive)
	ctx := context.Background()
	now := time.Now()
	gone, err := dead.ClaimDue(ctx, now, hookClaim("dead", 10))
	if err != nil || len(gone) != 2 {
		t.Fatalf("ClaimDue(dead) = %d jobs, %v; want the endpoint's 2", len(gone), err)
	}
	if jobs, err := alive.ClaimDue(ctx, now.Add(30*time.Second), hookClaim("alive", 10)); err != nil || len(jobs) != 0 {
		t.Fatalf("ClaimDue(alive) under the dead server's leases = %d jobs, %v", len(jobs), err)
	}
	later := now.Add(61 * time.Second)
	back, err := alive.ClaimDue(ctx, later, hookClaim("alive", 10))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(jobs []*store.DeliveryJob) []string {
		var out []string
		for _, j := range jobs {
			out = append(out, j.Delivery.ID)
			if len(j.Delivery.Body) == 0 || j.Secret != hook.Secret {
				t.Fatalf("job %s without its body or secret", j.Delivery.ID)
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := ids(back), ids(gone); !slices.Equal(got, want) {
		t.Fatalf("after the dead server's leases: %v, want its deliveries %v", got, want)
	}
	for _, j := range back {
		if err := alive.RecordAttempt(ctx, j.Delivery.ID, store.Attempt{Status: 200, At: later}, store.RetryPolicy{}); err != nil {
			t.Fatal(err)
		}
	}
	// The dead server comes back and records its stale claim.
	if err := dead.RecordAttempt(ctx, gone[0].Delivery.ID, store.Attempt{Status: 200, At: later}, store.RetryPolicy{}); err != nil {
		t.Fatal(err)
	}
	rest, err := alive.ClaimDue(ctx, later.Add(2*time.Minute), hookClaim("alive", 10))
	if err != nil || len(rest) != 1 || slices.Contains(ids(gone), rest[0].Delivery.ID) {
		t.Fatalf("the last claim = %d jobs, %v; want only the third delivery", len(rest), err)
	}
	var n int
	for _, d := range hookDeliveries(t, alive, ref, hook.ID, store.DeliveryDelivered) {
		if d.ID == gone[0].Delivery.ID {
			n = d.Attempts
		}
	}
	if n != 2 {
		t.Fatalf("the stale claim's delivery has %d attempts, want 2 (both recorded)", n)
	}
}

// TestOutboxCapAcrossServers: the in-flight bound of an endpoint counts the
// leases of every server, also when many claims race, and a ping waits for
// room the same way.
func TestOutboxCapAcrossServers(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	hook := mustHook(t, dbs[0], ref, "plan.created")
	hookPlanEvents(t, dbs[0], ref, 12)
	expandHooks(t, dbs[0])
	ctx := context.Background()
	now := time.Now()
	one, err := dbs[0].ClaimDue(ctx, now, hookClaim("a", 1))
	if err != nil || len(one) != 1 {
		t.Fatalf("ClaimDue(a, 1) = %d, %v", len(one), err)
	}
	two, err := dbs[1].ClaimDue(ctx, now, hookClaim("b", 10))
	if err != nil || len(two) != 1 {
		t.Fatalf("ClaimDue(b) with a's lease live = %d jobs, %v; want 1", len(two), err)
	}
	_, err = dbs[1].TestDelivery(ctx, ref, hook.ID, now, hookClaim("b", 1))
	if store.ErrorCode(err) != store.ECodeConflict {
		t.Fatalf("TestDelivery at the bound = %v, want conflict", err)
	}
	// Many dispatchers on both servers race for the endpoint once the
	// leases have run out: two sends in all.
	later := now.Add(2 * time.Minute)
	var wg sync.WaitGroup
	var claimed atomic.Int32
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jobs, err := dbs[i%2].ClaimDue(ctx, later, hookClaim(fmt.Sprint("racer", i), 10))
			if err != nil {
				t.Error(err)
			}
			claimed.Add(int32(len(jobs)))
		}()
	}
	wg.Wait()
	if n := claimed.Load(); n != 2 {
		t.Fatalf("8 racing claims took %d deliveries of one endpoint, the bound is 2", n)
	}
	// A timed-out attempt leaves the endpoint one send in flight, on
	// every server.
	jobs, err := dbs[0].ClaimDue(ctx, later.Add(2*time.Minute), hookClaim("a", 1))
	if err != nil || len(jobs) != 1 {
		t.Fatalf("ClaimDue = %d, %v", len(jobs), err)
	}
	at := later.Add(2 * time.Minute)
	if err := dbs[0].RecordAttempt(ctx, jobs[0].Delivery.ID, store.Attempt{At: at, Error: "timeout", TimedOut: true},
		store.RetryPolicy{Schedule: []time.Duration{time.Hour}}); err != nil {
		t.Fatal(err)
	}
	if jobs, err := dbs[0].ClaimDue(ctx, at, hookClaim("a", 1)); err != nil || len(jobs) != 1 {
		t.Fatalf("ClaimDue(a) after the timeout = %d, %v", len(jobs), err)
	}
	if jobs, err := dbs[1].ClaimDue(ctx, at, hookClaim("b", 10)); err != nil || len(jobs) != 0 {
		t.Fatalf("ClaimDue(b) with the timed-out endpoint's one send in flight = %d, %v", len(jobs), err)
	}
}

// TestOutboxSettleAcrossServers: an endpoint created on one server does not
// get the events committed before it, even when the other server expands
// them; one disabled keeps those it heard, waiting, and gets them when
// enabled again.
func TestOutboxSettleAcrossServers(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	ctx := context.Background()
	a := mustHook(t, dbs[0], ref, "plan.*")
	expandHooks(t, dbs[1])
	hookPlanEvents(t, dbs[1], ref, 2)
	b := mustHook(t, dbs[0], ref, "plan.*")
	if _, err := dbs[0].UpdateWebhook(ctx, ref, a.ID, store.WebhookUpdate{Status: hookPtr(store.WebhookDisabled)}); err != nil {
		t.Fatal(err)
	}
	expandHooks(t, dbs[1])
	if got := hookDeliveries(t, dbs[1], ref, a.ID, store.DeliveryPending); len(got) != 2 {
		t.Fatalf("A (subscribed at the events) has %d pending deliveries, want 2", len(got))
	}
	if got := hookDeliveries(t, dbs[1], ref, b.ID, ""); len(got) != 0 {
		t.Fatalf("B (created after the events) has %d deliveries, want 0", len(got))
	}
	if n, _, err := dbs[1].OutboxStats(ctx); err != nil || n != 0 {
		t.Fatalf("OutboxStats with only a disabled endpoint's deliveries = %d, %v", n, err)
	}
	if _, err := dbs[1].UpdateWebhook(ctx, ref, a.ID, store.WebhookUpdate{Status: hookPtr(store.WebhookActive)}); err != nil {
		t.Fatal(err)
	}
	jobs, err := dbs[0].ClaimDue(ctx, time.Now().Add(time.Second), hookClaim("d", 10))
	if err != nil || len(jobs) != 2 || jobs[0].Delivery.WebhookID != a.ID {
		t.Fatalf("ClaimDue after enabling A = %d, %v", len(jobs), err)
	}
	// Deleting B, then A, drops their deliveries and the payloads with the last.
	for _, h := range []*store.Webhook{b, a} {
		if err := dbs[1].DeleteWebhook(ctx, ref, h.ID); err != nil {
			t.Fatal(err)
		}
	}
	var left int
	if err := dbs[0].pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM webhook_deliveries) + (SELECT count(*) FROM outbox_bodies)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d deliveries and payloads left after deleting every endpoint (%v)", left, err)
	}
}

func hookPtr[T any](v T) *T { return &v }

// TestOutboxGoneDisables: a 410 disables the endpoint (the record runs
// again under the organization's endpoint lock): its waiting deliveries
// leave the queue, the change is audited, and the events committed before
// it still reach it once it is enabled.
func TestOutboxGoneDisables(t *testing.T) {
	dbs, ref := hookServers(t, 2)
	ctx := context.Background()
	hook := mustHook(t, dbs[0], ref, "plan.created")
	hookPlanEvents(t, dbs[0], ref, 3)
	expandHooks(t, dbs[0])
	now := time.Now()
	jobs, err := dbs[1].ClaimDue(ctx, now, hookClaim("d", 1))
	if err != nil || len(jobs) != 1 {
		t.Fatalf("ClaimDue = %d, %v", len(jobs), err)
	}
	hookPlanEvents(t, dbs[0], ref, 1) // waits unexpanded: the disabling settles it
	if err := dbs[1].RecordAttempt(ctx, jobs[0].Delivery.ID, store.Attempt{Status: 410, At: now},
		store.RetryPolicy{Schedule: []time.Duration{time.Minute}}); err != nil {
		t.Fatal(err)
	}
	list, err := dbs[0].ListWebhooks(ctx, ref)
	if err != nil || len(list) != 1 || list[0].Status != store.WebhookDisabled || list[0].FailingSince == nil {
		t.Fatalf("ListWebhooks after a 410 = %+v, %v", list, err)
	}
	if n, _, err := dbs[0].OutboxStats(ctx); err != nil || n != 0 {
		t.Fatalf("OutboxStats with the endpoint disabled = %d, %v", n, err)
	}
	if got := hookDeliveries(t, dbs[0], ref, hook.ID, store.DeliveryPending); len(got) != 4 {
		t.Fatalf("%d deliveries wait for the disabled endpoint, want 4", len(got))
	}
	var audited int
	if err := dbs[0].pool.QueryRow(ctx, `SELECT count(*) FROM audit WHERE event = $1 AND target_id = $2`, store.EventWebhookDisabled, hook.ID).Scan(&audited); err != nil || audited != 1 {
		t.Fatalf("%d webhook.disabled entries (%v), want 1", audited, err)
	}
	if _, err := dbs[1].UpdateWebhook(ctx, ref, hook.ID, store.WebhookUpdate{Status: hookPtr(store.WebhookActive)}); err != nil {
		t.Fatal(err)
	}
	if n, _, err := dbs[0].OutboxStats(ctx); err != nil || n != 4 {
		t.Fatalf("OutboxStats after enabling = %d, %v; want the 4 deliveries due", n, err)
	}
}

package bolt

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// outboxFixture is an application with one endpoint subscribed to plan.*.
func outboxFixture(t *testing.T) (*DB, *store.Application) {
	t.Helper()
	db, _ := mustAccountsDB(t)
	ctx := context.Background()
	o, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Org", OwnerEmail: "o@example.com", OwnerPassword: "correct horse battery staple 42"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: o.ID, Name: "App"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateWebhook(ctx, store.AppRef{OrgID: o.ID, AppID: a.ID}, "https://example.com/hook", []string{"plan.*"}); err != nil {
		t.Fatal(err)
	}
	return db, a
}

// queued is the number of outbox events (their count and their records).
func queued(tb testing.TB, db *DB) (counted, records int) {
	tb.Helper()
	err := db.view(context.Background(), func(t *txn) error {
		counted = t.count(bOutbox, nil)
		records = t.tx.Bucket(bOutbox).Stats().KeyN
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return counted, records
}

func planEvent(a *store.Application) auditEvent {
	return auditEvent{Event: store.EventPlanCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(), Target: store.Target{Type: "plan", ID: store.NewID()}}
}

func TestOutboxRollbackEnqueuesNothing(t *testing.T) {
	db, a := outboxFixture(t)
	boom := errors.New("boom")
	err := db.update(context.Background(), func(t *txn) error {
		if err := t.audit(planEvent(a)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if due, n := queued(t, db); due != 0 || n != 0 {
		t.Fatalf("after rollback: %d due, %d records", due, n)
	}
	select {
	case <-db.Enqueued():
		t.Fatal("a rolled-back change woke the dispatcher")
	default:
	}
	if err := db.update(context.Background(), func(t *txn) error { return t.audit(planEvent(a)) }); err != nil {
		t.Fatal(err)
	}
	if due, n := queued(t, db); due != 1 || n != 1 {
		t.Fatalf("after commit: %d due, %d records", due, n)
	}
	select {
	case <-db.Enqueued():
	default:
		t.Fatal("the commit did not wake the dispatcher")
	}
}

// TestOutboxGroupCommitRetry: a closure that shares a batch with a failing
// one is run again, and its delivery is queued exactly once.
func TestOutboxGroupCommitRetry(t *testing.T) {
	db, a := outboxFixture(t)
	g := &groupCommit{db: db}
	ctx := context.Background()

	// Hold the writer so that the calls below gather into one batch.
	hold, holding := make(chan struct{}), make(chan struct{})
	go func() {
		_ = db.bolt.Update(func(*bbolt.Tx) error { close(holding); <-hold; return nil })
	}()
	<-holding
	var wg sync.WaitGroup
	var runs atomic.Int32
	boom := errors.New("boom")
	errs := make([]error, 3)
	calls := []func(t *txn) error{
		func(t *txn) error { return nil }, // starts the loop; blocks on the writer
		func(t *txn) error { runs.Add(1); return t.audit(planEvent(a)) },
		func(t *txn) error {
			if err := t.audit(planEvent(a)); err != nil {
				return err
			}
			return boom
		},
	}
	for i, fn := range calls {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = g.do(ctx, fn) }()
		waitPending(g, i)
	}
	close(hold)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], boom) {
		t.Fatalf("errs = %v", errs)
	}
	if runs.Load() < 2 {
		t.Fatalf("the closure ran %d times; the test meant it to be retried", runs.Load())
	}
	if due, n := queued(t, db); due != 1 || n != 1 {
		t.Fatalf("%d due, %d records; want exactly one", due, n)
	}
}

// waitPending waits until the loop runs and n calls wait behind it.
func waitPending(g *groupCommit, n int) {
	for {
		g.mu.Lock()
		ok := g.running && len(g.pending) == n
		g.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestMigrateDueByHook: a version-4 file, whose changes wrote one delivery
// per endpoint straight into the due index by time, opens at version 5 and
// its pending deliveries are claimed and delivered as before.
func TestMigrateDueByHook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	open := func() *DB {
		db, err := Open(path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	ctx := context.Background()
	o, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Org"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: o.ID, Name: "App"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: o.ID, AppID: a.ID}
	var want []string
	for _, url := range []string{"https://a.example.com/hook", "https://b.example.com/hook"} {
		h, err := db.CreateWebhook(ctx, ref, url, []string{"plan.*"})
		if err != nil {
			t.Fatal(err)
		}
		// What version 4 wrote: the delivery and its due key by time only.
		err = db.update(ctx, func(t *txn) error {
			w := new(storedoc.Webhook)
			if err := t.mustGet(bHooks, h.ID, "webhook", w); err != nil {
				return err
			}
			d, err := t.newDelivery("", w, store.EventPlanCreated, []byte(`{"type":"plan.created"}`), t.now, true)
			if err != nil {
				return err
			}
			want = append(want, d.ID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bDelivDueHook, bOutbox, bOutboxScope} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(4))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	defer db.Close()
	if got := db.Migrated(); !slices.Equal(got, migrationsAfter(4)) {
		t.Fatalf("Migrated() = %q", got)
	}
	jobs, err := db.ClaimDue(ctx, time.Now().Add(time.Second), store.Claim{Owner: "d", Limit: 10, PerEndpoint: 2, PerApp: 10, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.Delivery.ID)
		if err := db.RecordAttempt(ctx, j.Delivery.ID, store.Attempt{Status: 204, At: time.Now()}, store.RetryPolicy{}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("claimed after migration %v, want %v", got, want)
	}
	if n, _, err := db.OutboxStats(ctx); err != nil || n != 0 {
		t.Fatalf("OutboxStats after delivering = %d, %v", n, err)
	}
}

// TestOutboxSharedBody: the deliveries of one event share one copy of its
// payload, which goes with the last of them.
func TestOutboxSharedBody(t *testing.T) {
	db, a := outboxFixture(t)
	ctx := context.Background()
	ref := store.AppRef{OrgID: a.OrgID, AppID: a.ID}
	second, err := db.CreateWebhook(ctx, ref, "https://b.example.com/hook", []string{"plan.*"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.update(ctx, func(t *txn) error { return t.audit(planEvent(a)) }); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ExpandEvents(ctx, 10); err != nil || n != 1 {
		t.Fatalf("ExpandEvents = %d, %v", n, err)
	}
	bodies := func() int {
		n := 0
		_ = db.view(ctx, func(t *txn) error { n = t.tx.Bucket(bOutboxBodies).Stats().KeyN; return nil })
		return n
	}
	if n := bodies(); n != 1 {
		t.Fatalf("%d payloads kept for one event to two endpoints", n)
	}
	jobs, err := db.ClaimDue(ctx, time.Now().Add(time.Second), store.Claim{Owner: "d", Limit: 10, PerEndpoint: 2, PerApp: 10, Lease: time.Minute})
	if err != nil || len(jobs) != 2 || string(jobs[0].Delivery.Body) != string(jobs[1].Delivery.Body) || len(jobs[0].Delivery.Body) == 0 {
		t.Fatalf("ClaimDue = %d jobs, %v", len(jobs), err)
	}
	if err := db.DeleteWebhook(ctx, ref, second.ID); err != nil {
		t.Fatal(err)
	}
	if n := bodies(); n != 1 {
		t.Fatalf("the payload went with the first of its two deliveries (%d left)", n)
	}
	hooks, err := db.ListWebhooks(ctx, ref)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("ListWebhooks = %v, %v", hooks, err)
	}
	if err := db.DeleteWebhook(ctx, ref, hooks[0].ID); err != nil {
		t.Fatal(err)
	}
	if n := bodies(); n != 0 {
		t.Fatalf("%d payloads left after every delivery went", n)
	}
}

// TestPingAtTheBoundWaitsForNoWriter: a test ping at the in-flight bound is
// refused while another change holds the writer (store.PingPrecheck), so a
// long write queue cannot turn the refusal into a late admission; a ping
// with room waits for the writer and is written.
func TestPingAtTheBoundWaitsForNoWriter(t *testing.T) {
	for _, c := range []struct {
		name    string
		leases  func(hook, app string) []lease
		wantErr string // "" when the ping is admitted once the writer is free
	}{
		{"ErrConflictEndpointAtItsBound", func(hook, app string) []lease {
			return []lease{{owner: "other", hook: hook, app: app}, {owner: "other", hook: hook, app: app}}
		}, store.ECodeConflict},
		{"ErrConflictApplicationAtItsShare", func(hook, app string) []lease {
			return []lease{{owner: "ping", hook: store.NewID(), app: app}}
		}, store.ECodeConflict},
		{"OKRoomWaitsForTheWriter", func(string, string) []lease { return nil }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, a := outboxFixture(t)
			ctx := context.Background()
			ref := store.AppRef{OrgID: a.OrgID, AppID: a.ID}
			hooks, err := db.ListWebhooks(ctx, ref)
			if err != nil || len(hooks) != 1 {
				t.Fatalf("ListWebhooks = %v, %v", hooks, err)
			}
			now := time.Now()
			db.leases.mu.Lock()
			for _, l := range c.leases(hooks[0].ID, a.ID) {
				l.until = now.Add(time.Minute)
				db.leases.byID[store.NewID()] = l
			}
			db.leases.mu.Unlock()
			held, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				_ = db.update(ctx, func(*txn) error {
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			const hold = 500 * time.Millisecond
			// The writer is given back after hold whatever the ping does,
			// before the store closes.
			time.AfterFunc(hold, func() { close(release) })
			t.Cleanup(func() { <-done })
			start := time.Now()
			_, err = db.TestDelivery(ctx, ref, hooks[0].ID, now, store.Claim{Owner: "ping", Limit: 1, PerEndpoint: 2, PerApp: 1, Lease: time.Minute})
			took := time.Since(start)
			if c.wantErr == "" {
				if err != nil || took < hold {
					t.Fatalf("TestDelivery with room = %v after %v; want the ping, after the writer's %v", err, took, hold)
				}
				return
			}
			if store.ErrorCode(err) != c.wantErr || took >= hold {
				t.Fatalf("TestDelivery at the bound = %v after %v; want %s before the writer is free (%v)", err, took, c.wantErr, hold)
			}
		})
	}
}

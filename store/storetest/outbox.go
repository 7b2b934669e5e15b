package storetest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// testOutbox certifies store.Outbox: one outbox event per change whatever
// the number of endpoints, expansion against the endpoints of the event's
// time, a leased claim that never hands one delivery to two dispatchers
// while the lease holds and hands it again after (or at once when its
// holder gives it back), round-robin over
// endpoints, the per-endpoint and per-application bounds, pings within
// them, the bounds on endpoints and patterns, and the payloads' objects
// (testPayloads). It drives the outbox by
// hand, so it runs only on a store no dispatcher works (Harness.Dispatched).
func testOutbox(t *testing.T, open Opener) {
	const url = "http://127.0.0.1:9/conformance"
	hook := func(t *testing.T, f *fixture, events ...string) *store.Webhook {
		t.Helper()
		h, err := f.db.CreateWebhook(f.ctx, f.ref(), url, events)
		if err != nil {
			t.Fatalf("CreateWebhook: %v", err)
		}
		return h
	}
	// appHook creates another application of f's organization with an
	// endpoint hearing every event.
	appHook := func(t *testing.T, f *fixture, name string) (store.AppRef, *store.Webhook) {
		t.Helper()
		a, err := f.db.CreateApplication(f.ctx, store.CreateApplicationInput{OrgID: f.org.ID, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: f.org.ID, AppID: a.ID}
		h, err := f.db.CreateWebhook(f.ctx, ref, url, []string{store.EventAll})
		if err != nil {
			t.Fatal(err)
		}
		return ref, h
	}
	total := func(t *testing.T, f *fixture, h *store.Webhook) int {
		t.Helper()
		p, err := f.db.ListDeliveries(f.ctx, f.ref(), h.ID, store.DeliveryFilter{})
		if err != nil {
			t.Fatalf("ListDeliveries: %v", err)
		}
		return p.Total
	}
	pending := func(t *testing.T, f *fixture) int {
		t.Helper()
		n, _, err := f.be.OutboxStats(f.ctx)
		if err != nil {
			t.Fatalf("OutboxStats: %v", err)
		}
		return n
	}
	claim := func(owner string, limit int) store.Claim {
		return store.Claim{Owner: owner, Limit: limit, PerEndpoint: 2, PerApp: 100, Lease: time.Minute}
	}
	// claimedPlan is an endpoint hearing plan.created and the delivery of
	// one plan's creation, claimed by "one" at the time returned.
	claimedPlan := func(t *testing.T, f *fixture) (*store.Webhook, *store.DeliveryJob, time.Time) {
		t.Helper()
		h := hook(t, f, "plan.created")
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Claimed")}); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		now := time.Now().Add(time.Second)
		jobs, err := f.be.ClaimDue(f.ctx, now, claim("one", 10))
		if err != nil || len(jobs) != 1 {
			t.Fatalf("ClaimDue = %d, %v", len(jobs), err)
		}
		return h, jobs[0], now
	}

	fixture := func(t *testing.T) *fixture {
		t.Helper()
		f := newFixture(t, open)
		if f.dispatched {
			t.Skip("a dispatcher works this store's outbox; the store's own run certifies it")
		}
		return f
	}

	t.Run("OKOneEventPerChange", func(t *testing.T) {
		f := fixture(t)
		var hooks []*store.Webhook
		for range 3 {
			hooks = append(hooks, hook(t, f, "license.*"))
		}
		other := hook(t, f, "user.*")
		off := hook(t, f, "*")
		if _, err := f.db.UpdateWebhook(f.ctx, f.ref(), off.ID, store.WebhookUpdate{Status: ptr(store.WebhookDisabled)}); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f) // the webhook.* events of the set-up (off hears its own creation)
		base, offBase := pending(t, f), total(t, f, off)
		select { // what the set-up signalled
		case <-f.be.Enqueued():
		default:
		}
		f.licenses(t, store.PlanInput{Name: ptr("Fan")}, 5)
		select {
		case <-f.be.Enqueued():
		default:
			t.Fatal("Enqueued did not signal after a commit that queued events")
		}
		// Five license.created (the plan.created matches no active
		// endpoint): one event each, not one per endpoint.
		if got := pending(t, f) - base; got != 5 {
			t.Fatalf("after 5 licenses for 3 endpoints: %d more queued, want 5 events", got)
		}
		expandAll(t, f)
		for _, h := range hooks {
			if n := total(t, f, h); n != 5 {
				t.Fatalf("endpoint %s has %d deliveries, want 5", h.ID, n)
			}
		}
		if n := total(t, f, other); n != 0 {
			t.Fatalf("an endpoint subscribed to user.* got %d deliveries", n)
		}
		if n := total(t, f, off) - offBase; n != 0 {
			t.Fatalf("a disabled endpoint got %d deliveries", n)
		}
		if got := pending(t, f) - base; got != 15 {
			t.Fatalf("after expansion: %d pending, want 15 deliveries", got)
		}
	})

	t.Run("OKPurgedApplicationsEndpointsGo", func(t *testing.T) {
		// A permanently deleted application takes its endpoints and their
		// deliveries with it: they hear neither its deletion nor the
		// organization's events after it.
		f := fixture(t)
		ref, _ := appHook(t, f, "Purged Hooks")
		if _, err := f.db.CreatePlan(f.ctx, ref, store.PlanInput{Name: ptr("Heard")}); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		if n := pending(t, f); n == 0 {
			t.Fatal("the endpoint heard nothing before the deletion")
		}
		if err := f.db.DeleteApplication(f.ctx, ref, true); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		if n := pending(t, f); n != 0 {
			t.Fatalf("after the permanent deletion: %d deliveries pending, want 0", n)
		}
		if _, err := f.db.UpdateOrganization(f.ctx, f.org.ID, store.OrganizationUpdate{Name: ptr("Renamed After Purge")}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "after purge"); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		if n := pending(t, f); n != 0 {
			t.Fatalf("organization events after the deletion: %d deliveries pending, want 0", n)
		}
	})

	t.Run("OKEndpointsOfTheEventsTime", func(t *testing.T) {
		f := fixture(t)
		a := hook(t, f, "plan.*")
		expandAll(t, f)
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Before B")}); err != nil {
			t.Fatal(err)
		}
		// B comes after the event and stops hearing plans; A is disabled:
		// neither change alters who the waiting event goes to.
		b := hook(t, f, "plan.*")
		if _, err := f.db.UpdateWebhook(f.ctx, f.ref(), a.ID, store.WebhookUpdate{Status: ptr(store.WebhookDisabled)}); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		if n := total(t, f, a); n != 1 {
			t.Fatalf("A (subscribed at the event) has %d deliveries, want 1", n)
		}
		if n := total(t, f, b); n != 0 {
			t.Fatalf("B (created after the event) has %d deliveries, want 0", n)
		}
		p, err := f.db.ListDeliveries(f.ctx, f.ref(), a.ID, store.DeliveryFilter{Status: store.DeliveryPending})
		if err != nil || p.Total != 1 {
			t.Fatalf("A's waiting delivery = %+v, %v", p, err)
		}
	})

	t.Run("OKStats", func(t *testing.T) {
		f := fixture(t)
		hook(t, f, "plan.created")
		expandAll(t, f)
		base := pending(t, f)
		stats := func(what string, want int, oldest time.Time) {
			t.Helper()
			n, at, err := f.be.OutboxStats(f.ctx)
			if err != nil || n-base != want || !at.Equal(oldest) {
				t.Fatalf("%s: OutboxStats = %d more, %v, %v; want %d more, %v", what, n-base, at, err, want, oldest)
			}
		}
		created := f.clock.Now()
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Stats one")}); err != nil {
			t.Fatal(err)
		}
		stats("an event not expanded", 1, created)
		f.clock.Advance(time.Minute)
		expandAll(t, f)
		stats("its delivery, queued, due since the event", 1, created)
		f.clock.Advance(time.Minute)
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Stats two")}); err != nil {
			t.Fatal(err)
		}
		stats("a delivery and a later event", 2, created)
	})
	t.Run("OKScopes", func(t *testing.T) {
		// An application's event goes to its own endpoints only; an
		// organization's event to the endpoints of every application.
		f := fixture(t)
		own := hook(t, f, store.EventAll)
		refB, other := appHook(t, f, "Other Scope")
		expandAll(t, f)
		count := func(ref store.AppRef, h *store.Webhook, event string) int {
			t.Helper()
			p, err := f.db.ListDeliveries(f.ctx, ref, h.ID, store.DeliveryFilter{PageRequest: store.PageRequest{PerPage: 100}})
			if err != nil {
				t.Fatalf("ListDeliveries: %v", err)
			}
			n := 0
			for _, d := range p.Data {
				if d.Event == event {
					n++
				}
			}
			return n
		}
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Scoped")}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "scoped"); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		for _, c := range []struct {
			name  string
			ref   store.AppRef
			h     *store.Webhook
			event string
			want  int
		}{
			{"own plan.created", f.ref(), own, store.EventPlanCreated, 1},
			{"other plan.created", refB, other, store.EventPlanCreated, 0},
			{"own api_key.created", f.ref(), own, store.EventAPIKeyCreated, 1},
			{"other api_key.created", refB, other, store.EventAPIKeyCreated, 1},
		} {
			if got := count(c.ref, c.h, c.event); got != c.want {
				t.Errorf("%s: %d deliveries, want %d", c.name, got, c.want)
			}
		}
	})

	t.Run("ErrNotFoundDeliveries", func(t *testing.T) {
		// An endpoint's deliveries are read through its own application
		// only; an unknown one, or another application's, is not found.
		f := fixture(t)
		refB, other := appHook(t, f, "Other Deliveries")
		for name, c := range map[string]struct {
			ref store.AppRef
			id  string
		}{
			"another application's endpoint": {f.ref(), other.ID},
			"an unknown endpoint":            {f.ref(), store.NewID()},
			"an unknown application":         {store.AppRef{OrgID: f.org.ID, AppID: store.NewID()}, other.ID},
		} {
			_, err := f.db.ListDeliveries(f.ctx, c.ref, c.id, store.DeliveryFilter{})
			wantCode(t, "ListDeliveries("+name+")", err, store.ECodeNotFound)
		}
		if p, err := f.db.ListDeliveries(f.ctx, refB, other.ID, store.DeliveryFilter{}); err != nil || p.Total != 0 {
			t.Fatalf("ListDeliveries(its own application) = %+v, %v", p, err)
		}
	})

	t.Run("OKExpansionBound", func(t *testing.T) {
		// One expansion writes at most 1,000 deliveries: of 700 events for
		// two endpoints, the first call expands 500.
		f := fixture(t)
		hook(t, f, "license.created")
		hook(t, f, "license.created")
		expandAll(t, f)
		f.licenses(t, store.PlanInput{Name: ptr("Bounded Expansion")}, 700)
		for _, want := range []int{500, 200, 0} {
			n, err := f.be.ExpandEvents(f.ctx, 1000)
			if err != nil || n != want {
				t.Fatalf("ExpandEvents = %d, %v; want %d", n, err, want)
			}
		}
		if got := pending(t, f); got != 1400 {
			t.Fatalf("after expansion: %d pending, want 1400 deliveries", got)
		}
	})

	t.Run("OKPayloads", func(t *testing.T) { testPayloads(t, fixture(t)) })

	t.Run("OKLease", func(t *testing.T) {
		f := fixture(t)
		hooks := []*store.Webhook{hook(t, f, "license.created"), hook(t, f, "license.created")}
		f.licenses(t, store.PlanInput{Name: ptr("Leased")}, 4)
		expandAll(t, f)
		now := time.Now().Add(time.Second)
		one, err := f.be.ClaimDue(f.ctx, now, claim("one", 10))
		if err != nil || len(one) != 4 {
			t.Fatalf("ClaimDue(one) = %d jobs, %v; want 2 per endpoint", len(one), err)
		}
		per := map[string]int{}
		for _, j := range one {
			per[j.Delivery.WebhookID]++
			var body struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(j.Delivery.Body, &body); err != nil || body.Type != store.EventLicenseCreated || j.URL != url || j.Secret == "" {
				t.Fatalf("claimed job %s: body %s (%v), url %q", j.Delivery.ID, j.Delivery.Body, err, j.URL)
			}
		}
		if per[hooks[0].ID] != 2 || per[hooks[1].ID] != 2 {
			t.Fatalf("claimed per endpoint %v", per)
		}
		// While the lease holds, another dispatcher gets nothing: the
		// endpoints' bounds count the leases of every owner.
		if two, err := f.be.ClaimDue(f.ctx, now.Add(30*time.Second), claim("two", 10)); err != nil || len(two) != 0 {
			t.Fatalf("ClaimDue(two) under the lease = %d jobs, %v", len(two), err)
		}
		// One attempt is recorded: its lease ends and the endpoint has room
		// for the next delivery, which is not one of the leased ones.
		a := store.Attempt{Status: 200, At: now, Latency: 42 * time.Millisecond}
		if err := f.be.RecordAttempt(f.ctx, one[0].Delivery.ID, a, store.RetryPolicy{Schedule: []time.Duration{time.Hour}}); err != nil {
			t.Fatal(err)
		}
		two, err := f.be.ClaimDue(f.ctx, now.Add(30*time.Second), claim("two", 10))
		if err != nil || len(two) != 1 || two[0].Delivery.WebhookID != one[0].Delivery.WebhookID {
			t.Fatalf("ClaimDue(two) after one attempt = %d jobs, %v; want the endpoint's next", len(two), err)
		}
		for _, j := range one {
			if j.Delivery.ID == two[0].Delivery.ID {
				t.Fatalf("delivery %s handed out twice while its lease held", j.Delivery.ID)
			}
		}
		// "one" dies: after its lease its three claims come back, to "two".
		late, err := f.be.ClaimDue(f.ctx, now.Add(2*time.Minute), claim("two", 10))
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, j := range late {
			got = append(got, j.Delivery.ID)
		}
		for _, j := range one[1:] {
			want = append(want, j.Delivery.ID)
		}
		want = append(want, two[0].Delivery.ID) // two's own lease ran out as well
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("after the lease: %v, want %v", got, want)
		}
	})

	t.Run("OKReleaseClaim", func(t *testing.T) {
		f := fixture(t)
		_, job, now := claimedPlan(t, f)
		id := job.Delivery.ID
		// Another owner cannot give back a lease it does not hold.
		if err := f.be.ReleaseClaim(f.ctx, id, "two"); err != nil {
			t.Fatal(err)
		}
		if again, err := f.be.ClaimDue(f.ctx, now, claim("two", 10)); err != nil || len(again) != 0 {
			t.Fatalf("ClaimDue after another owner's release = %d jobs, %v; the lease holds", len(again), err)
		}
		// The holder stops before the send ends: the delivery is due at
		// once, under its id, and no attempt is counted.
		if err := f.be.ReleaseClaim(f.ctx, id, "one"); err != nil {
			t.Fatal(err)
		}
		again, err := f.be.ClaimDue(f.ctx, now, claim("two", 10))
		if err != nil || len(again) != 1 || again[0].Delivery.ID != id || again[0].Delivery.Attempts != 0 {
			t.Fatalf("ClaimDue after the release = %d jobs, %v; want delivery %s again, unattempted", len(again), err, id)
		}
	})

	t.Run("OKAttemptRecorded", func(t *testing.T) {
		f := fixture(t)
		h, job, now := claimedPlan(t, f)
		a := store.Attempt{At: now, Latency: 1500 * time.Millisecond, Error: "context deadline exceeded", TimedOut: true}
		if err := f.be.RecordAttempt(f.ctx, job.Delivery.ID, a, store.RetryPolicy{Schedule: []time.Duration{time.Second}}); err != nil {
			t.Fatal(err)
		}
		p, err := f.db.ListDeliveries(f.ctx, f.ref(), h.ID, store.DeliveryFilter{})
		if err != nil || p.Total != 1 {
			t.Fatalf("ListDeliveries = %+v, %v", p, err)
		}
		d := p.Data[0]
		if d.Attempts != 1 || d.ResponseStatus != 0 || d.LastError != a.Error || d.LastLatency != a.Latency || d.Status != store.DeliveryPending {
			t.Fatalf("delivery after a timed-out attempt = %+v", d)
		}
	})

	// What an attempt's outcome does to the delivery, its endpoint and its
	// lease, and what a manual retry does after it.
	t.Run("OKAttemptOutcomes", func(t *testing.T) {
		for _, c := range []struct {
			name     string
			status   int
			schedule []time.Duration
			want     string // the delivery's status after the attempt
			again    bool   // claimable again at once: its lease ended with the attempt
			disabled bool   // the endpoint is disabled (webhook.disabled) and a retry waits
		}{
			{"Delivered", 200, []time.Duration{0}, store.DeliveryDelivered, false, false},
			{"RetriedAtOnce", 500, []time.Duration{0}, store.DeliveryPending, true, false},
			{"FailedScheduleSpent", 500, nil, store.DeliveryFailed, false, false},
			{"GoneDisables", 410, []time.Duration{0}, store.DeliveryPending, false, true},
		} {
			t.Run(c.name, func(t *testing.T) {
				f := fixture(t)
				h, job, now := claimedPlan(t, f)
				a := store.Attempt{At: now, Status: c.status}
				if err := f.be.RecordAttempt(f.ctx, job.Delivery.ID, a, store.RetryPolicy{Schedule: c.schedule}); err != nil {
					t.Fatal(err)
				}
				p, err := f.db.ListDeliveries(f.ctx, f.ref(), h.ID, store.DeliveryFilter{})
				if err != nil || p.Total != 1 {
					t.Fatalf("ListDeliveries = %+v, %v", p, err)
				}
				if d := p.Data[0]; d.Status != c.want || d.Attempts != 1 || d.ResponseStatus != c.status || d.LastAttemptAt == nil {
					t.Fatalf("delivery after a %d = %+v; want %s, one attempt", c.status, d, c.want)
				}
				again, err := f.be.ClaimDue(f.ctx, now.Add(time.Second), claim("two", 10))
				if err != nil || (len(again) == 1) != c.again {
					t.Fatalf("ClaimDue after the attempt = %d jobs, %v; want claimable %v", len(again), err, c.again)
				}
				hooks, err := f.db.ListWebhooks(f.ctx, f.ref())
				if err != nil || len(hooks) != 1 || (hooks[0].Status == store.WebhookDisabled) != c.disabled {
					t.Fatalf("ListWebhooks = %+v, %v; want disabled %v", hooks, err, c.disabled)
				}
				audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventWebhookDisabled})
				if err != nil || (audit.Total == 1) != c.disabled || audit.Total > 1 {
					t.Fatalf("webhook.disabled entries = %+v, %v; want one %v", audit, err, c.disabled)
				}
				if c.disabled {
					if e := audit.Data[0]; e.Target.ID != h.ID || e.Metadata["reason"] != store.DisableGone {
						t.Fatalf("webhook.disabled = %+v", e)
					}
				}
				// A manual retry makes it pending and due now; it is queued
				// only while its endpoint is active.
				if err := f.db.RetryDelivery(f.ctx, f.ref(), h.ID, job.Delivery.ID); err != nil {
					t.Fatal(err)
				}
				later, err := f.be.ClaimDue(f.ctx, now.Add(2*time.Minute), claim("three", 10))
				if err != nil || (len(later) == 1) == c.disabled {
					t.Fatalf("ClaimDue after the retry = %d jobs, %v; want claimable %v", len(later), err, !c.disabled)
				}
			})
		}
	})

	t.Run("OKAttemptOfDeletedEndpoint", func(t *testing.T) {
		f := fixture(t)
		h, job, now := claimedPlan(t, f)
		other := hook(t, f, "plan.created")
		wantCode(t, "RetryDelivery(another endpoint's delivery)", f.db.RetryDelivery(f.ctx, f.ref(), other.ID, job.Delivery.ID), store.ECodeNotFound)
		if err := f.db.DeleteWebhook(f.ctx, f.ref(), h.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.be.RecordAttempt(f.ctx, job.Delivery.ID, store.Attempt{At: now, Status: 200}, store.RetryPolicy{}); err != nil {
			t.Fatalf("RecordAttempt after the endpoint went: %v", err)
		}
	})

	t.Run("OKRoundRobin", func(t *testing.T) {
		f := fixture(t)
		busy := hook(t, f, "license.created")
		plan, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Backlog")})
		if err != nil {
			t.Fatal(err)
		}
		// A backlog longer than any bounded scan, all older than the
		// other endpoint's one delivery.
		for range 3 {
			if _, err := f.db.GenerateLicenses(f.ctx, f.scope(store.EnvProduction), store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 700}); err != nil {
				t.Fatal(err)
			}
		}
		quiet := hook(t, f, "plan.created")
		if _, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Quiet")}); err != nil {
			t.Fatal(err)
		}
		expandAll(t, f)
		now := time.Now().Add(time.Second)
		jobs, err := f.be.ClaimDue(f.ctx, now, claim("one", 2))
		if err != nil || len(jobs) != 2 {
			t.Fatalf("ClaimDue = %d, %v", len(jobs), err)
		}
		if jobs[0].Delivery.WebhookID == jobs[1].Delivery.WebhookID {
			t.Fatalf("both claims went to one endpoint (%s); the other waits behind its backlog", jobs[0].Delivery.WebhookID)
		}
		// Successive claims of one delivery each alternate.
		seen := map[string]int{}
		for i := range 4 {
			next, err := f.be.ClaimDue(f.ctx, now.Add(time.Duration(i+1)*2*time.Minute), claim("one", 1))
			if err != nil || len(next) != 1 {
				t.Fatalf("ClaimDue(1) = %d, %v", len(next), err)
			}
			seen[next[0].Delivery.WebhookID]++
		}
		if seen[busy.ID] != 2 || seen[quiet.ID] != 2 {
			t.Fatalf("four claims of one went %v; want two to each endpoint", seen)
		}
	})

	t.Run("OKBounds", func(t *testing.T) {
		f := fixture(t)
		a, b := hook(t, f, "license.created"), hook(t, f, "license.created")
		f.licenses(t, store.PlanInput{Name: ptr("Bounded")}, 3)
		expandAll(t, f)
		now := time.Now().Add(time.Second)
		c := claim("one", 10)
		c.PerApp = 3
		jobs, err := f.be.ClaimDue(f.ctx, now, c)
		if err != nil || len(jobs) != 3 {
			t.Fatalf("ClaimDue with PerApp 3 = %d jobs, %v", len(jobs), err)
		}
		// The application is at its share: a ping waits.
		_, err = f.be.TestDelivery(f.ctx, f.ref(), a.ID, now, c)
		wantCode(t, "TestDelivery(application at its bound)", err, store.ECodeConflict)
		// Another owner's share is its own, but the endpoints' bound holds:
		// the endpoint with two in flight takes no ping, the other takes one.
		held := map[string]int{}
		for _, j := range jobs {
			held[j.Delivery.WebhookID]++
		}
		full, room := a, b
		if held[a.ID] < 2 {
			full, room = b, a
		}
		_, err = f.be.TestDelivery(f.ctx, f.ref(), full.ID, now, claim("two", 1))
		wantCode(t, "TestDelivery(endpoint at its bound)", err, store.ECodeConflict)
		ping, err := f.be.TestDelivery(f.ctx, f.ref(), room.ID, now, claim("two", 1))
		if err != nil || ping.Delivery.Event != store.EventWebhookTest {
			t.Fatalf("TestDelivery = %+v, %v", ping, err)
		}
		// A timed-out endpoint gets one in flight: b's attempt times out.
		for _, j := range jobs {
			if j.Delivery.WebhookID == b.ID {
				a := store.Attempt{At: now, Error: "timeout", TimedOut: true}
				if err := f.be.RecordAttempt(f.ctx, j.Delivery.ID, a, store.RetryPolicy{Schedule: []time.Duration{0}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		later := now.Add(2 * time.Minute) // every lease has run out
		jobs, err = f.be.ClaimDue(f.ctx, later, claim("three", 10))
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for _, j := range jobs {
			per[j.Delivery.WebhookID]++
		}
		if per[b.ID] != 1 || per[a.ID] != 2 {
			t.Fatalf("claimed per endpoint after b timed out: %v; want b 1, a 2", per)
		}
		// Enabling again restarts the failure run, and with it the
		// timed-out bound: b gets its two again.
		for _, st := range []string{store.WebhookDisabled, store.WebhookActive} {
			if _, err := f.db.UpdateWebhook(f.ctx, f.ref(), b.ID, store.WebhookUpdate{Status: ptr(st)}); err != nil {
				t.Fatal(err)
			}
		}
		jobs, err = f.be.ClaimDue(f.ctx, later.Add(2*time.Minute), claim("four", 10))
		if err != nil {
			t.Fatal(err)
		}
		per = map[string]int{}
		for _, j := range jobs {
			per[j.Delivery.WebhookID]++
		}
		if per[b.ID] != 2 {
			t.Fatalf("claimed per endpoint after b was enabled again: %v; want b 2", per)
		}
	})

	t.Run("ErrConflictMaxEndpoints", func(t *testing.T) {
		f := newFixture(t, open)
		for range store.DefaultMaxEndpoints {
			hook(t, f, "plan.created")
		}
		_, err := f.db.CreateWebhook(f.ctx, f.ref(), url, []string{"plan.created"})
		wantCode(t, "CreateWebhook(21st)", err, store.ECodeConflict)
		if !strings.Contains(err.Error(), "webhooks.max_endpoints") {
			t.Fatalf("the conflict does not name the setting: %v", err)
		}
	})

	t.Run("ErrValidationFailedPatterns", func(t *testing.T) {
		f := newFixture(t, open)
		events := slices.Repeat([]string{store.EventPlanCreated}, store.MaxEventPatterns+1)
		_, err := f.db.CreateWebhook(f.ctx, f.ref(), url, events[:store.MaxEventPatterns+1])
		wantCode(t, "CreateWebhook(51 patterns)", err, store.ECodeValidation)
		if !strings.Contains(err.Error(), "events") {
			t.Fatalf("the error does not name events: %v", err)
		}
		if _, err := f.db.CreateWebhook(f.ctx, f.ref(), url, events[:store.MaxEventPatterns]); err != nil {
			t.Fatalf("CreateWebhook(50 patterns): %v", err)
		}
	})
}

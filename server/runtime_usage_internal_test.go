package server

import (
	"context"
	"testing"

	"licensectl/store"
)

// TestUsageAddsUpServers: two servers on one store (two usage counters)
// count an organization's month together (docs/design.md §12: "Monthly
// request usage adds up the counts of all servers"): after a flush each
// one's quota check and usage read include the other's requests, and the
// quota holds over both.
func TestUsageAddsUpServers(t *testing.T) {
	t.Parallel()
	db := openBolt(t)
	defer db.Close()
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Usage", OwnerEmail: "owner@usage.test", OwnerPassword: "correct horse battery staple 42"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Counted"})
	if err != nil {
		t.Fatal(err)
	}
	rt := db.OpenRuntime(store.RuntimeOptions{})
	quota := fixedQuota(10)
	one, two := newUsageCounter(rt, quota, store.SystemClock), newUsageCounter(rt, quota, store.SystemClock)
	c := store.RuntimeClient{AppID: app.ID}
	admit := func(u *usageCounter, n int) (admitted int) {
		t.Helper()
		for range n {
			if _, err := u.admit(ctx, c); err == nil {
				admitted++
			} else if store.ErrorCode(err) != store.ECodeMonthlyQuota {
				t.Fatalf("admit: %v", err)
			}
		}
		return admitted
	}
	if got := admit(one, 4) + admit(two, 3); got != 7 {
		t.Fatalf("admitted %d of 7 under a quota of 10", got)
	}
	for _, u := range []*usageCounter{one, two, one} {
		if err := u.flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now := store.SystemClock()
	for i, u := range []*usageCounter{one, two} {
		if n := u.unflushed(org.ID, now); n != 0 {
			t.Fatalf("server %d: %d unflushed after its flush", i+1, n)
		}
		if mu := u.orgs[org.ID].cur.Load(); mu.total.Load() != 7 {
			t.Fatalf("server %d counts %d for the month, want 7 (both servers')", i+1, mu.total.Load())
		}
	}
	// 3 left in all: once the other's flush is seen (a flush interval
	// late at most), a server admits only what the quota leaves over both.
	if got := admit(one, 2); got != 2 {
		t.Fatalf("server 1 admitted %d of 2", got)
	}
	if n := one.unflushed(org.ID, now); n != 2 {
		t.Fatalf("server 1 holds %d unflushed, want 2", n)
	}
	for _, u := range []*usageCounter{one, two} {
		if err := u.flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := admit(two, 5); got != 1 {
		t.Fatalf("server 2 admitted %d more, want the 1 the quota leaves", got)
	}
	if err := two.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := rt.RuntimeRequests(ctx, org.ID, now); err != nil || n != 10 {
		t.Fatalf("stored %d, %v; want the quota's 10", n, err)
	}
}

// fixedQuota is a store.Quotas with one limit for every organization.
type fixedQuota int64

func (q fixedQuota) MonthlyRequestLimit(context.Context, string) (int64, error) { return int64(q), nil }

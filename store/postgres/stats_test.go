package postgres

import (
	"context"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storetest"
)

// TestStats: the database's size, and the sessions of every server counted
// at most once a minute.
func TestStats(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	dbs := twoServers(t, Options{Policies: store.Policies{Clock: clock.Now}})
	a, b := dbs[0], dbs[1]
	ctx := context.Background()
	st, err := a.Stats(ctx)
	if err != nil || st.SizeBytes <= 0 || st.Sessions != 0 || st.GroupCommitSize.Count != 0 {
		t.Fatalf("Stats = %+v, %v; want a size, no session and no commit", st, err)
	}
	org := billingOrg(t, a, clock.Now()) // no store transaction
	if _, err := a.BillingSubscription(ctx, store.NewID()); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("BillingSubscription(unknown) = %v", err) // a read
	}
	for range 2 {
		if _, err := a.CountHit(ctx, "k", 5, time.Minute); err != nil { // no transaction of the store's
			t.Fatal(err)
		}
	}
	if _, err := a.SweepBilling(ctx); err != nil { // a write transaction
		t.Fatal(err)
	}
	st, err = a.Stats(ctx)
	if c, s := st.GroupCommitSize, st.GroupCommitSeconds; err != nil || c.Count != 1 || c.Sum != 1 || s.Count != 1 || s.Sum <= 0 {
		t.Fatalf("Stats after one write = %+v, %+v, %v; want one commit of one write", c, s, err)
	}
	now := clock.Now()
	// The other server's session, with the rows it names, none written by
	// a transaction of the store's.
	app, env, dev := store.NewID(), store.NewID(), store.NewID()
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO apps (id, org_id, slug, status, doc) VALUES ($1, $2, 'stats', 'active', '{}')`, []any{app, org}},
		{`INSERT INTO app_envs (id, app_id, name, public_key) VALUES ($1, $2, 'production', $3)`, []any{env, app, env}},
		{`INSERT INTO devices (id, app_id, env_id, fingerprint, status, doc) VALUES ($1, $2, $3, 'pc', 'active', '{}')`, []any{dev, app, env}},
		{`INSERT INTO sessions (id, app_id, env_id, device_id, access_hash, refresh_hash,
			access_expires_at, refresh_expires_at, absolute_expires_at, created_at) VALUES ($1, $2, $3, $4, 'a', 'r', $5, $5, $5, $5)`,
			[]any{store.NewID(), app, env, dev, now.Add(time.Hour)}},
	} {
		if _, err := b.pool.Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
	}
	if st, err := a.Stats(ctx); err != nil || st.Sessions != 0 {
		t.Fatalf("Stats within the minute = %+v, %v; want the count kept", st, err)
	}
	clock.Advance(time.Minute)
	if st, err := a.Stats(ctx); err != nil || st.Sessions != 1 {
		t.Fatalf("Stats a minute later = %+v, %v; want the other server's session", st, err)
	}
}

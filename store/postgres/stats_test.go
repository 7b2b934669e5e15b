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
	a, b := twoServers(t, clock)
	ctx := context.Background()
	st, err := a.Stats(ctx)
	if err != nil || st.SizeBytes <= 0 || st.Sessions != 0 || st.GroupCommitSize.Count != 0 {
		t.Fatalf("Stats = %+v, %v; want a size and no session", st, err)
	}
	now := clock.Now()
	if _, err := b.pool.Exec(ctx, `INSERT INTO sessions (id, app_id, env_id, device_id, access_hash, refresh_hash,
		access_expires_at, refresh_expires_at, absolute_expires_at, created_at) VALUES ($1, $2, $2, $2, 'a', 'r', $3, $3, $3, $3)`,
		store.NewID(), store.NewID(), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st, err := a.Stats(ctx); err != nil || st.Sessions != 0 {
		t.Fatalf("Stats within the minute = %+v, %v; want the count kept", st, err)
	}
	clock.Advance(time.Minute)
	if st, err := a.Stats(ctx); err != nil || st.Sessions != 1 {
		t.Fatalf("Stats a minute later = %+v, %v; want the other server's session", st, err)
	}
}

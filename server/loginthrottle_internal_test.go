package server

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/store"
)

// TestLoginThrottleSharedByServers: two servers on one store (two throttles
// and two mail queues on its counters) count into the same windows
// (docs/design.md §12, "Shared counters"): failures spread over both lock
// the pair on both, the account-wide bound trips on both, a success on one
// clears the pair for the other, and an address's mail share is one for
// both.
func TestLoginThrottleSharedByServers(t *testing.T) {
	t.Parallel()
	db := openBolt(t)
	defer db.Close()
	ctx := context.Background()
	rl := config.RateLimit{Enabled: true, Window: time.Minute, LoginFailures: 3, LoginFailuresGlobal: 5}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	one := newLoginThrottle(rl, db, "dashboard", nil, logger)
	two := newLoginThrottle(rl, db, "dashboard", nil, logger)
	servers := []*loginThrottle{one, two}
	for i := range 3 {
		if err := servers[i%2].attempt(ctx, "owner@example.com", "192.0.2.1", ""); err != nil {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	for i, s := range servers {
		if err := s.attempt(ctx, "owner@example.com", "192.0.2.1", ""); store.ErrorCode(err) != store.ECodeRateLimited {
			t.Fatalf("server %d after 3 failures over both: %v; want rate_limited", i+1, err)
		}
	}
	// A runtime login of the same name counts apart.
	runtime := newLoginThrottle(rl, db, "runtime", nil, logger)
	if err := runtime.attempt(ctx, "owner@example.com", "192.0.2.1", ""); err != nil {
		t.Fatalf("runtime login: %v", err)
	}
	// Two more failures from other addresses reach the account-wide bound.
	for i, addr := range []string{"192.0.2.2", "192.0.2.3"} {
		if err := servers[i].attempt(ctx, "owner@example.com", addr, ""); err != nil {
			t.Fatalf("failure from %s: %v", addr, err)
		}
	}
	for i, s := range servers {
		if err := s.attempt(ctx, "owner@example.com", "198.51.100.7", ""); store.ErrorCode(err) != store.ECodeChallenge {
			t.Fatalf("server %d past the account-wide bound: %v; want challenge_required", i+1, err)
		}
	}
	// A success of a pair under its limit, on one server, clears it for
	// the other.
	two.succeeded(ctx, "owner@example.com", "192.0.2.2")
	if st, err := one.pair.Allow(ctx, "owner@example.com|192.0.2.2"); err != nil || !st.ok || st.remaining != 2 {
		t.Fatalf("pair after a success on the other server = %+v, %v; want a fresh window", st, err)
	}

	q1, q2 := newMailQueue(db, logger), newMailQueue(db, logger)
	sent := 0
	for i := range 2 * mailsPerAddress {
		if []*mailQueue{q1, q2}[i%2].allowed(ctx, "Owner@Example.com") {
			sent++
		}
	}
	if sent != mailsPerAddress {
		t.Fatalf("mails allowed over two servers = %d, want %d", sent, mailsPerAddress)
	}
}

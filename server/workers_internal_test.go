package server

import (
	"context"
	"licensectl/store/bolt"
	"licensectl/store/password"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
)

// openBolt opens a bbolt store in a fresh directory.
func openBolt(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "licensectl.db"), bolt.Options{Hasher: password.NewHasher(password.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// mustNew builds, without opening, a server on db listening on a free
// loopback port; it is closed when the test ends.
func mustNew(t *testing.T, db *bolt.DB) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	s, err := New(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Building a server lists its background work and starts none of it: only
// Open does (issue 8: router construction started goroutines).
func TestNewStartsNoGoroutines(t *testing.T) {
	// Not parallel: it counts the process's goroutines, which parallel tests start and end.
	db := openBolt(t)
	before := runtime.NumGoroutine()
	s := mustNew(t, db)
	// The count is the whole process's: a timer or connection left by an
	// earlier test may run a goroutine of its own meanwhile, and it ends.
	// A worker New started would not, so the count must come back down.
	for tries := 0; runtime.NumGoroutine() > before; tries++ {
		if tries == 100 {
			t.Fatalf("New started %d goroutines", runtime.NumGoroutine()-before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(s.workers) < 6 {
		t.Fatalf("only %d workers listed", len(s.workers))
	}
}

// Registering routes builds nothing and lists nothing: the constructor made
// the runtime state and listed every worker in one place (issue 20), so a
// second router (or a route added later) cannot duplicate a worker.
func TestRoutesHaveNoSideEffects(t *testing.T) {
	t.Parallel()
	s := mustNew(t, openBolt(t))
	names := func() []string {
		var out []string
		for _, w := range s.workers {
			out = append(out, w.name)
		}
		return out
	}
	want := []string{"flush last seen", "flush runtime usage", "sweep sessions and nonces", "billing sweeper",
		"license expiry", "account mail", "webhook dispatcher", "audit retention"}
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("workers = %q, want %q", got, want)
	}
	rt := s.rt
	s.routes()
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("after routes(): workers = %q, want %q", got, want)
	}
	if s.rt != rt {
		t.Fatal("routes() rebuilt the runtime state")
	}
}

// periodic runs at start and once more on stop when asked, so that what is
// counted in memory is written before the store closes.
func TestPeriodic(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name            string
		atStart, atStop bool
		want            int32
	}{{"OKNeither", false, false, 0}, {"OKAtStart", true, false, 1}, {"OKAtStop", false, true, 1}, {"OKBoth", true, true, 2}} {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() {
				done <- periodic{interval: time.Hour, atStart: tt.atStart, atStop: tt.atStop, fn: func(context.Context) { n.Add(1) }}.Run(ctx)
			}()
			time.Sleep(10 * time.Millisecond)
			cancel()
			if err := <-done; err != nil || n.Load() != tt.want {
				t.Fatalf("runs = %d, err %v; want %d", n.Load(), err, tt.want)
			}
		})
	}
}

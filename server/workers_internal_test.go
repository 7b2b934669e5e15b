package server

import (
	"context"
	"licensectl/store/bolt"
	"licensectl/store/password"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
)

// Building a server lists its background work and starts none of it: only
// Open does (issue 8: router construction started goroutines).
func TestNewStartsNoGoroutines(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	db, err := bolt.Open(filepath.Join(cfg.DataDir, "licensectl.db"), bolt.Options{Hasher: password.NewHasher(password.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	s, err := New(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("New started %d goroutines", after-before)
	}
	if len(s.workers) < 6 {
		t.Fatalf("only %d workers listed", len(s.workers))
	}
}

// periodic runs at start and once more on stop when asked, so that what is
// counted in memory is written before the store closes.
func TestPeriodic(t *testing.T) {
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

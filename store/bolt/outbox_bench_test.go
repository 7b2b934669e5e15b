package bolt

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// BenchmarkActivateOutbox compares activation throughput (parallel callers,
// group commit) with no webhook endpoint and with one subscribed to
// license.activated: the outbox writes one event and renders its payload in
// the activation's transaction, and must not halve the rate. pages/op is
// what each activation costs the commit: the pages bbolt writes, divided
// among the activations of a group commit.
func BenchmarkActivateOutbox(b *testing.B) {
	for _, endpoints := range []int{0, 1} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			e := newEnv(b)
			if endpoints > 0 {
				if _, err := e.db.CreateWebhook(e.ctx, e.scope.App(), "https://example.com/hook", []string{"license.activated"}); err != nil {
					b.Fatal(err)
				}
			}
			p := e.mustPlan(b)
			var keys []string
			for len(keys) < b.N {
				for _, l := range e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: min(store.MaxGenerate, max(b.N-len(keys), 1))}) {
					keys = append(keys, l.Key)
				}
			}
			rt := e.db.Runtime(RuntimeOptions{Signer: func(*store.Environment, store.AccessClaims) (string, error) { return "token", nil },
				AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour})
			client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
			var next atomic.Int64
			b.SetParallelism(32)
			written := writtenPages(e.db)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1) - 1
					in := store.ActivateInput{LicenseKey: keys[i], Fingerprint: fmt.Sprintf("device-%08d", i),
						Replay: store.Replay{Timestamp: e.clock.now(), Nonce: fmt.Sprintf("nonce-%012d", i)}}
					if _, err := rt.Activate(e.ctx, client, in); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(writtenPages(e.db)-written)/float64(b.N), "pages/op")
			if events, _ := queued(b, e.db); events != min(endpoints, 1)*b.N {
				b.Fatalf("%d outbox events for %d activations", events, b.N)
			}
		})
	}
}

// BenchmarkGenerateFanOut generates 1,000 licenses (one transaction, as
// `licenses generate` does) in an application with 0, 1 and 20 endpoints
// subscribed to license.created, and reports the pages the generation adds
// and, apart, what expanding its outbox events into deliveries costs
// afterwards. The generation's time is how long it holds the one writer,
// every tenant's activations waiting behind it (docs/performance.md).
func BenchmarkGenerateFanOut(b *testing.B) {
	for _, endpoints := range []int{0, 1, 20} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			e := newEnv(b)
			e.clock.advance(123456 * time.Microsecond)
			for i := range endpoints {
				if _, err := e.db.CreateWebhook(e.ctx, e.scope.App(), fmt.Sprintf("https://h%d.example.com/hook", i), []string{"license.created"}); err != nil {
					b.Fatal(err)
				}
			}
			p := e.mustPlan(b)
			var grown, expanded int
			var expanding time.Duration
			b.ResetTimer()
			for range b.N {
				alloc0, _ := pageBytes(b, e.db)
				e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate})
				b.StopTimer()
				alloc1, _ := pageBytes(b, e.db)
				start := time.Now()
				for {
					n, err := e.db.ExpandEvents(e.ctx, 200)
					if err != nil {
						b.Fatal(err)
					}
					if n == 0 {
						break
					}
				}
				expanding += time.Since(start)
				alloc2, _ := pageBytes(b, e.db)
				grown += alloc1 - alloc0
				expanded += alloc2 - alloc1
				b.StartTimer()
			}
			b.ReportMetric(float64(grown)/float64(b.N)/(1<<20), "MiB/generation")
			b.ReportMetric(float64(expanded)/float64(b.N)/(1<<20), "expand-MiB/generation")
			b.ReportMetric(float64(expanding.Milliseconds())/float64(b.N), "expand-ms/generation")
			if due, _, err := e.db.OutboxStats(e.ctx); err != nil || due != endpoints*store.MaxGenerate*b.N {
				b.Fatalf("%d deliveries due after %d generations, %v", due, b.N, err)
			}
		})
	}
}

// writtenPages is how many pages the database's commits have written so far.
func writtenPages(db *DB) int64 {
	s := db.bolt.Stats()
	return s.TxStats.GetWrite()
}

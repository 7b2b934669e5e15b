package bolt

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// BenchmarkActivateAgain is activation of a device already bound (a client
// starting again), parallel callers through group commit: the path where
// the transaction writes only the session, its nonce and its audit entry.
func BenchmarkActivateAgain(b *testing.B) {
	e := newEnv(b)
	p := e.mustPlan(b)
	const licenses = 1000
	keys := make([]string, 0, licenses)
	for _, l := range e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: licenses}) {
		keys = append(keys, l.Key)
	}
	rt := e.db.Runtime(RuntimeOptions{Signer: func(*store.Environment, store.AccessClaims) (string, error) { return "token", nil },
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour})
	client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
	var next atomic.Int64
	activate := func() error {
		i := next.Add(1) - 1
		k := int(i) % licenses
		_, err := rt.Activate(e.ctx, client, store.ActivateInput{LicenseKey: keys[k], Fingerprint: fmt.Sprintf("device-%08d", k),
			Replay: store.Replay{Timestamp: e.clock.now(), Nonce: fmt.Sprintf("nonce-%012d", i)}})
		return err
	}
	for range licenses {
		if err := activate(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := activate(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

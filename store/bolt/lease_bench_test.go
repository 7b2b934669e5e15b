package bolt

import (
	"fmt"
	"testing"

	"licensectl/store"
)

// BenchmarkLeaseCheckout checks one device's seat out again and again (the
// held lease extended) and heartbeats it: the floating seat's own cost, the
// nonce, the session cascade and the lease write, one request at a time.
func BenchmarkLeaseCheckout(b *testing.B) {
	e := newEnv(b)
	rt := e.db.Runtime(sessionRuntimeOptions())
	client, act := e.activatedSession(b, rt, "bench-lease")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		g, err := rt.CheckoutLease(e.ctx, client, act.AccessToken, store.Replay{Timestamp: e.clock.now(), Nonce: fmt.Sprintf("bench-lease-%012d", i)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rt.HeartbeatLease(e.ctx, client, store.LeaseInput{AccessToken: act.AccessToken, LeaseID: g.ID}); err != nil {
			b.Fatal(err)
		}
	}
}

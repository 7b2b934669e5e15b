package bolt

import (
	"testing"
	"time"

	"licensectl/store"
)

// BenchmarkRefresh rotates one session's pair again and again: the refresh's
// own cost (the presigning read, the write transaction, its commit), one
// request at a time.
func BenchmarkRefresh(b *testing.B) {
	e := newEnv(b)
	rt := e.db.Runtime(RuntimeOptions{Signer: testSigner, SessionOf: testSessionOf, AccessTTL: time.Hour, RefreshIdleTTL: time.Hour,
		RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Hour})
	client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
	lic := e.mustGenerate(b, store.GenerateLicensesInput{PlanID: e.mustPlan(b).ID})[0]
	act, err := rt.Activate(e.ctx, client, store.ActivateInput{LicenseKey: lic.Key, Fingerprint: "fp-bench-refresh",
		Replay: store.Replay{Timestamp: e.clock.now(), Nonce: "bench-refresh-nonce-1"}})
	if err != nil {
		b.Fatal(err)
	}
	token := act.RefreshToken
	b.ReportAllocs()
	for b.Loop() {
		s, err := rt.Refresh(e.ctx, client, token)
		if err != nil {
			b.Fatal(err)
		}
		token = s.RefreshToken
	}
}

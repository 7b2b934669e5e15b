package bolt

import (
	"testing"
	"time"
)

// BenchmarkRefresh rotates one session's pair again and again: the refresh's
// own cost (the presigning read, the write transaction, its commit), one
// request at a time.
func BenchmarkRefresh(b *testing.B) {
	e := newEnv(b)
	rt := e.db.Runtime(RuntimeOptions{Signer: testSigner, SessionOf: testSessionOf, AccessTTL: time.Hour, RefreshIdleTTL: time.Hour,
		RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Hour})
	client, token := e.activatedSession(b, rt, "bench-refresh")
	b.ReportAllocs()
	for b.Loop() {
		s, err := rt.Refresh(e.ctx, client, token)
		if err != nil {
			b.Fatal(err)
		}
		token = s.RefreshToken
	}
}

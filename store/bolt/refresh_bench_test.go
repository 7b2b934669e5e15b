package bolt

import (
	"testing"
)

// BenchmarkRefresh rotates one session's pair again and again: the refresh's
// own cost (the presigning read, the write transaction, its commit), one
// request at a time.
func BenchmarkRefresh(b *testing.B) {
	e := newEnv(b)
	rt := e.db.Runtime(sessionRuntimeOptions())
	client, act := e.activatedSession(b, rt, "bench-refresh")
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

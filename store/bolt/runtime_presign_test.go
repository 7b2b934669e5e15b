package bolt

import (
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// TestRefreshPresigned holds bbolt's refresh to one signature, made before
// the write transaction (PrepareRefresh): a refresh that signed again under
// the one writer would answer the same and serialize every signature.
func TestRefreshPresigned(t *testing.T) {
	e := newEnv(t)
	var signed, ahead atomic.Int32
	opts := sessionRuntimeOptions()
	opts.Signer = func(env *store.Environment, c store.AccessClaims) (string, error) {
		signed.Add(1)
		if strings.Contains(string(debug.Stack()), "runtimeStorage.PrepareRefresh") {
			ahead.Add(1)
		}
		return testSigner(env, c)
	}
	rt := e.db.Runtime(opts)
	client, act := e.activatedSession(t, rt, "presign")
	token := act.RefreshToken
	for i := range 3 {
		signed.Store(0)
		ahead.Store(0)
		s, err := rt.Refresh(e.ctx, client, token)
		if err != nil {
			t.Fatalf("Refresh %d: %v", i, err)
		}
		if n, a := signed.Load(), ahead.Load(); n != 1 || a != 1 {
			t.Fatalf("Refresh %d signed %d access tokens, %d before the write; want one, before", i, n, a)
		}
		token = s.RefreshToken
	}
}

// activatedSession activates a fresh license of e's plan on a device named
// after name and returns the client and the activation.
func (e *env) activatedSession(tb testing.TB, rt *Runtime, name string) (store.RuntimeClient, *store.Activation) {
	tb.Helper()
	client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
	lic := e.mustGenerate(tb, store.GenerateLicensesInput{PlanID: e.mustPlan(tb).ID})[0]
	act, err := rt.Activate(e.ctx, client, store.ActivateInput{LicenseKey: lic.Key, Fingerprint: "fp-" + name,
		Replay: store.Replay{Timestamp: e.clock.now(), Nonce: name + "-nonce-0001"}})
	if err != nil {
		tb.Fatal(err)
	}
	return client, act
}

// sessionRuntimeOptions are runtime options whose tokens are real and
// distinct, so that sessions are found by them.
func sessionRuntimeOptions() RuntimeOptions {
	return RuntimeOptions{Signer: testSigner, SessionOf: testSessionOf, AccessTTL: time.Hour, RefreshIdleTTL: time.Hour,
		RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Hour}
}

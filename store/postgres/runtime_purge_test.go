package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"licensectl/store"
)

// TestRuntimeWritesRacePurge: activations on one server while another
// deletes their application for good. Each activation either commits before
// the purge, and the purge removes what it wrote, or finds the application
// disabled or gone: no device, binding, session, nonce or audit entry is
// left under an application that no longer exists, and the deletion is not
// held up by the stream of activations (before the application was
// disabled first, eight workers activated 1,000 devices while it waited).
func TestRuntimeWritesRacePurge(t *testing.T) {
	ctx := context.Background()
	dbs := twoServers(t, Options{})
	rt := dbs[0].OpenRuntime(runtimeTestOptions())
	org := catalogOrg(t, dbs[0], "purging")
	for round := range 6 {
		a, err := dbs[0].CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: fmt.Sprintf("Purged %d", round)})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: org, AppID: a.ID}
		sc := store.Scope{OrgID: org, AppID: a.ID, Env: store.EnvProduction}
		p, err := dbs[0].CreatePlan(ctx, ref, store.PlanInput{Name: ptrTo("Site"), MaxDevices: ptrTo(100000)})
		if err != nil {
			t.Fatal(err)
		}
		lics, err := dbs[0].GenerateLicenses(ctx, sc, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 1})
		if err != nil {
			t.Fatal(err)
		}
		client := store.RuntimeClient{AppID: a.ID, Env: store.EnvProduction}
		started := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					_, err := rt.Activate(ctx, client, store.ActivateInput{LicenseKey: lics[0].Key, Fingerprint: fmt.Sprintf("pc-%d-%d", w, i),
						Replay: store.Replay{Timestamp: time.Now(), Nonce: fmt.Sprintf("purge-%d-%d-%d-nonce", round, w, i)}})
					if err == nil {
						once.Do(func() { close(started) })
						continue
					}
					// The deletion disables the application first.
					if c := store.ErrorCode(err); c != store.ECodeInvalidApp && c != store.ECodeAppDisabled {
						errs <- fmt.Errorf("activation %d of worker %d: %v, want success, %s or %s", i, w, err, store.ECodeInvalidApp, store.ECodeAppDisabled)
					}
					return
				}
			}()
		}
		<-started
		if err := dbs[1].DeleteApplication(ctx, ref, true); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`SELECT count(*) FROM devices WHERE app_id = $1`, []any{a.ID}},
			{`SELECT count(*) FROM sessions WHERE app_id = $1`, []any{a.ID}},
			{`SELECT count(*) FROM licenses WHERE app_id = $1`, []any{a.ID}},
			{`SELECT count(*) FROM nonces WHERE env_id = ANY($1)`, []any{a.EnvIDs()}},
			{`SELECT count(*) FROM audit WHERE env_ids && $1::uuid[]`, []any{a.EnvIDs()}},
			{`SELECT count(*) FROM license_devices d WHERE NOT EXISTS (SELECT 1 FROM licenses l WHERE l.id = d.license_id)`, nil},
		} {
			if n := catalogCount(t, dbs[0], q.sql, q.args...); n != 0 {
				t.Fatalf("round %d: %s = %d after the purge", round, q.sql, n)
			}
		}
	}
}

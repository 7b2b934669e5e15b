package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/postgres/pgtest"
	"licensectl/store/storetest"
)

// The runtime's own tests seed their records with SQL, so that they stand
// without the management API, and prove across two servers on one database
// what docs/design.md §12 asks the runtime to hold there.

// runtimeWorld is one organization with one application, seeded by SQL,
// seen by one or more servers (DBs on one database).
type runtimeWorld struct {
	t     *testing.T
	ctx   context.Context
	clock *storetest.Clock
	dbs   []*DB
	rts   []store.RuntimeBackend
	org   string
	app   *store.Application
	seq   atomic.Int64 // nonces, drawn by parallel requests
}

// runtimeTestOptions are the runtime options of these tests: those of the
// conformance suite.
func runtimeTestOptions() store.RuntimeOptions {
	return store.RuntimeOptions{
		Signer: func(env *store.Environment, c store.AccessClaims) (string, error) {
			return "rt." + env.Name + "." + c.SessionID + "." + c.ID, nil
		},
		Issuer: "rt", AccessTTL: 15 * time.Minute, RefreshIdleTTL: 14 * 24 * time.Hour, RefreshAbsoluteTTL: 30 * 24 * time.Hour,
		ReplayWindow: 5 * time.Minute, RefreshReuseGrace: 10 * time.Second,
	}
}

// newRuntimeWorld opens servers DBs on one fresh database and seeds it.
func newRuntimeWorld(t *testing.T, servers int) *runtimeWorld {
	t.Helper()
	u := pgtest.URL(t)
	w := &runtimeWorld{t: t, ctx: context.Background(), clock: storetest.NewClock(time.Now())}
	for range servers {
		db, err := Open(w.ctx, Options{URL: u, Policies: store.Policies{Clock: w.clock.Now, Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		w.dbs = append(w.dbs, db)
		w.rts = append(w.rts, db.OpenRuntime(runtimeTestOptions()))
	}
	now := w.clock.Now()
	w.org = store.NewID()
	w.exec(`INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3)`, w.org, "org-"+w.org[:8],
		js(&store.Organization{ID: w.org, Name: "Runtime", CreatedAt: now}))
	a := &store.Application{ID: store.NewID(), OrgID: w.org, Name: "Studio", Slug: "studio", Status: store.AppActive, CreatedAt: now, UpdatedAt: now}
	for _, name := range []string{store.EnvDevelopment, store.EnvProduction} {
		a.Environments = append(a.Environments, store.Environment{ID: store.NewID(), Name: name, PublicKey: "pk_" + name + "_" + a.ID[:8], CreatedAt: now})
	}
	w.exec(`INSERT INTO apps (id, org_id, slug, status, doc) VALUES ($1, $2, $3, $4, $5)`, a.ID, w.org, a.Slug, a.Status, js(a))
	for _, e := range a.Environments {
		w.exec(`INSERT INTO app_envs (id, app_id, name, public_key) VALUES ($1, $2, $3, $4)`, e.ID, a.ID, e.Name, e.PublicKey)
	}
	w.app = a
	return w
}

func (w *runtimeWorld) exec(sql string, args ...any) {
	w.t.Helper()
	if _, err := w.dbs[0].pool.Exec(w.ctx, sql, args...); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
}

func (w *runtimeWorld) prod() *store.Environment { return w.app.Env(store.EnvProduction) }

// entitlement seeds an entitlement of the application.
func (w *runtimeWorld) entitlement(key string) string {
	id := store.NewID()
	w.exec(`INSERT INTO entitlements (id, app_id, key, doc) VALUES ($1, $2, $3, $4)`, id, w.app.ID, key,
		js(&store.Entitlement{ID: id, AppID: w.app.ID, Key: key, Name: key, CreatedAt: w.clock.Now()}))
	return id
}

// license seeds a plan p and one inactive license of it in production; it
// returns the license's id and key.
func (w *runtimeWorld) license(p store.Plan) (string, string) {
	now := w.clock.Now()
	p.ID, p.AppID, p.CreatedAt, p.UpdatedAt = store.NewID(), w.app.ID, now, now
	if p.Name == "" {
		p.Name = "Plan"
	}
	w.exec(`INSERT INTO plans (id, app_id, doc) VALUES ($1, $2, $3)`, p.ID, w.app.ID, js(&p))
	key := fmt.Sprintf("RTRTR-%05d-AAAAA-BBBBB-CCCCC", w.seq.Add(1))
	l := &store.License{ID: store.NewID(), AppID: w.app.ID, EnvID: w.prod().ID, Key: key, PlanID: p.ID, Status: store.LicenseInactive,
		DeviceResetsRemaining: p.DeviceResetLimit, CreatedAt: now, UpdatedAt: now}
	w.exec(`INSERT INTO licenses (id, org_id, app_id, env_id, key, plan_id, status, doc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		l.ID, w.org, l.AppID, l.EnvID, l.Key, l.PlanID, l.Status, js(l))
	return l.ID, key
}

// user seeds an active end-user of production with password "secret".
func (w *runtimeWorld) user(email string) string {
	now := w.clock.Now()
	u := &store.EndUser{ID: store.NewID(), AppID: w.app.ID, EnvID: w.prod().ID, Email: email, PasswordHash: "h:secret",
		Status: store.UserActive, CreatedAt: now, UpdatedAt: now}
	w.exec(`INSERT INTO end_users (id, app_id, env_id, email, status, doc) VALUES ($1, $2, $3, $4, $5, $6)`,
		u.ID, u.AppID, u.EnvID, u.Email, u.Status, js(u))
	return u.ID
}

func (w *runtimeWorld) client() store.RuntimeClient { return store.RuntimeClient{AppID: w.app.ID} }

func (w *runtimeWorld) replay() store.Replay {
	return store.Replay{Timestamp: w.clock.Now(), Nonce: fmt.Sprintf("runtime-test-nonce-%08d", w.seq.Add(1))}
}

func (w *runtimeWorld) activate(srv int, key, fp string) (*store.Activation, error) {
	return w.rts[srv].Activate(w.ctx, w.client(), store.ActivateInput{LicenseKey: key, Fingerprint: fp, Replay: w.replay()})
}

func (w *runtimeWorld) mustActivate(srv int, key, fp string) *store.Activation {
	w.t.Helper()
	a, err := w.activate(srv, key, fp)
	if err != nil {
		w.t.Fatalf("Activate(%s): %v", fp, err)
	}
	return a
}

func (w *runtimeWorld) count(sql string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.dbs[0].pool.QueryRow(w.ctx, sql, args...).Scan(&n); err != nil {
		w.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (w *runtimeWorld) wantReason(srv int, what, token, reason string) *store.Validation {
	w.t.Helper()
	v, err := w.rts[srv].Validate(w.ctx, w.client(), token)
	if err != nil || v.Valid != (reason == "") || v.Reason != reason {
		w.t.Fatalf("%s: Validate = %+v, %v; want reason %q", what, v, err, reason)
	}
	return v
}

func runtimeWantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := store.ErrorCode(err); got != code {
		t.Fatalf("%s: error %v (code %q), want %q", what, err, got, code)
	}
}

// runtimeParallel runs fn n times at once and counts the error codes.
func runtimeParallel(n int, fn func(i int) error) map[string]int {
	var mu sync.Mutex
	out := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := store.ErrorCode(fn(i))
			if code == "" && fn != nil {
				code = "ok"
			}
			mu.Lock()
			out[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// TestRuntimeTwoServersActivation: 40 activations spread over two servers
// on 3 seats bind exactly 3 devices.
func TestRuntimeTwoServersActivation(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	id, key := w.license(store.Plan{MaxDevices: 3})
	codes := runtimeParallel(40, func(i int) error {
		_, err := w.activate(i%2, key, fmt.Sprintf("seat-%d", i))
		return err
	})
	if codes["ok"] != 3 || codes[store.ECodeDeviceLimit] != 37 {
		t.Fatalf("40 parallel activations on 3 seats: %v; want 3 ok and 37 %s", codes, store.ECodeDeviceLimit)
	}
	if n := w.count(`SELECT devices_count FROM licenses WHERE id = $1`, id); n != 3 {
		t.Fatalf("devices_count = %d, want 3", n)
	}
	if n := w.count(`SELECT count(*) FROM license_devices WHERE license_id = $1`, id); n != 3 {
		t.Fatalf("license_devices = %d, want 3", n)
	}
}

// TestRuntimeTwoServersNonce: a nonce used on one server is refused on the
// other, and of parallel uses over both exactly one passes.
func TestRuntimeTwoServersNonce(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	_, key := w.license(store.Plan{MaxDevices: 100})
	rp := w.replay()
	if _, err := w.rts[0].Activate(w.ctx, w.client(), store.ActivateInput{LicenseKey: key, Fingerprint: "n-1", Replay: rp}); err != nil {
		t.Fatal(err)
	}
	_, err := w.rts[1].Activate(w.ctx, w.client(), store.ActivateInput{LicenseKey: key, Fingerprint: "n-2", Replay: rp})
	runtimeWantCode(t, "Activate(the other server's nonce)", err, store.ECodeNonceReused)
	shared := w.replay()
	codes := runtimeParallel(10, func(i int) error {
		_, err := w.rts[i%2].Activate(w.ctx, w.client(), store.ActivateInput{LicenseKey: key, Fingerprint: fmt.Sprintf("np-%d", i), Replay: shared})
		return err
	})
	if codes["ok"] != 1 || codes[store.ECodeNonceReused] != 9 {
		t.Fatalf("10 parallel uses of one nonce: %v; want 1 ok", codes)
	}
	if n := w.count(`SELECT count(*) FROM audit WHERE event = $1`, store.EventRuntimeReplayRejected); n != 10 {
		t.Fatalf("%d runtime.replay_rejected entries, want 10", n)
	}
}

// TestRuntimeTwoServersRefresh: 10 refreshes of one token over two servers
// give one winner; the others are told it rotated and the session lives.
func TestRuntimeTwoServersRefresh(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	_, key := w.license(store.Plan{MaxDevices: 1})
	a := w.mustActivate(0, key, "race-pc")
	var mu sync.Mutex
	var won *store.RuntimeSession
	codes := runtimeParallel(10, func(i int) error {
		s, err := w.rts[i%2].Refresh(w.ctx, w.client(), a.RefreshToken)
		if err == nil {
			mu.Lock()
			won = s
			mu.Unlock()
		}
		return err
	})
	if codes["ok"] != 1 || codes[store.ECodeRefreshRotated] != 9 {
		t.Fatalf("10 parallel refreshes: %v; want 1 ok and 9 %s", codes, store.ECodeRefreshRotated)
	}
	w.wantReason(1, "the winner's access token", won.AccessToken, "")
	w.wantReason(0, "the rotated access token", a.AccessToken, store.ReasonTokenInvalid)
	if _, err := w.rts[1].Refresh(w.ctx, w.client(), won.RefreshToken); err != nil {
		t.Fatalf("Refresh(the winner's token): %v", err)
	}
}

// TestRuntimeTwoServersRevocation: a revocation committed through one
// server invalidates validation on the other at once (no cache), and so
// does a suspension of the license.
func TestRuntimeTwoServersRevocation(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	id, key := w.license(store.Plan{MaxDevices: 2})
	a := w.mustActivate(0, key, "rev-1")
	b := w.mustActivate(0, key, "rev-2")
	for range 3 { // validated (and so warm, were there a cache) on both
		w.wantReason(0, "before", a.AccessToken, "")
		w.wantReason(1, "before", a.AccessToken, "")
	}
	if err := w.rts[0].Logout(w.ctx, w.client(), a.AccessToken); err != nil {
		t.Fatal(err)
	}
	w.wantReason(1, "logged out on the other server", a.AccessToken, store.ReasonSessionRevoked)
	w.wantReason(1, "the other session", b.AccessToken, "")
	// A status change by the management API of the other server: the row as
	// the licenses part writes it.
	w.exec(`UPDATE licenses SET status = 'suspended', doc = json_build_object('ID', id, 'AppID', app_id, 'EnvID', env_id, 'Key', key,
		'PlanID', plan_id, 'Status', 'suspended') WHERE id = $1`, id)
	w.wantReason(1, "a suspended license", b.AccessToken, store.ReasonLicenseSuspended)
}

// TestRuntimeActivationAndReset covers activation's bindings, its refusals
// and the reset quota, on one server.
func TestRuntimeActivationAndReset(t *testing.T) {
	w := newRuntimeWorld(t, 1)
	ent := w.entitlement("export")
	days := 30
	id, key := w.license(store.Plan{MaxDevices: 2, DeviceResetLimit: 1, DurationDays: &days, EntitlementIDs: []string{ent}})
	a := w.mustActivate(0, key, "act-1")
	if a.LicenseStatus != store.LicenseActive || a.LicenseExpiresAt == nil || len(a.Entitlements) != 1 || a.Entitlements[0] != "export" ||
		!strings.HasPrefix(a.RefreshToken, a.SessionID+".") {
		t.Fatalf("Activate = %+v", a)
	}
	v := w.wantReason(0, "a fresh session", a.AccessToken, "")
	if len(v.Entitlements) != 1 || !v.ExpiresAt.Equal(a.AccessExpiresAt) {
		t.Fatalf("Validate = %+v", v)
	}
	w.mustActivate(0, strings.ToLower(strings.ReplaceAll(key, "-", "")), "act-1") // bound already: a new session
	w.mustActivate(0, key, "act-2")
	_, err := w.activate(0, key, "act-3")
	runtimeWantCode(t, "Activate(third device)", err, store.ECodeDeviceLimit)
	_, err = w.activate(0, "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "act-3")
	runtimeWantCode(t, "Activate(unknown key)", err, store.ECodeNotFound)
	reset := func(fp string) (int, error) {
		return w.rts[0].ResetDevice(w.ctx, w.client(), store.DeviceResetInput{LicenseKey: key, Fingerprint: fp})
	}
	if left, err := reset("act-1"); err != nil || left != 0 {
		t.Fatalf("ResetDevice = %d, %v; want 0 left", left, err)
	}
	w.wantReason(0, "the reset device's session", a.AccessToken, store.ReasonSessionRevoked)
	if r, err := w.dbs[0].SessionRevokeReason(w.ctx, a.SessionID); err != nil || r != store.RevokedDeviceReset {
		t.Fatalf("SessionRevokeReason = %q, %v", r, err)
	}
	_, err = reset("act-1")
	runtimeWantCode(t, "ResetDevice(no longer bound)", err, store.ECodeNotFound)
	_, err = reset("act-2")
	runtimeWantCode(t, "ResetDevice(no resets left)", err, store.ECodeResetLimit)
	if n := w.count(`SELECT devices_count FROM licenses WHERE id = $1`, id); n != 1 {
		t.Fatalf("devices_count = %d, want 1", n)
	}
	w.mustActivate(0, key, "act-3")
	if n := w.count(`SELECT count(*) FROM audit WHERE event = $1`, store.EventLicenseActivated); n != 4 {
		t.Fatalf("%d license.activated entries, want 4", n)
	}
}

// TestRuntimeLoginRefreshLogout covers an end-user's login, its license's
// entitlements, refresh rotation with its grace, reuse, the legacy form,
// logout and the housekeeping passes.
func TestRuntimeLoginRefreshLogout(t *testing.T) {
	w := newRuntimeWorld(t, 1)
	rt := w.rts[0]
	ent := w.entitlement("render")
	lic, _ := w.license(store.Plan{MaxDevices: 5, EntitlementIDs: []string{ent}})
	uid := w.user("user@runtime.test")
	w.exec(`UPDATE licenses SET user_id = $2 WHERE id = $1`, lic, uid)
	w.exec(`UPDATE licenses SET doc = json_build_object('ID', id, 'AppID', app_id, 'EnvID', env_id, 'Key', key, 'PlanID', plan_id,
		'Status', status, 'UserID', user_id) WHERE id = $1`, lic)
	login := func(pw string) (*store.RuntimeSession, error) {
		return rt.Login(w.ctx, w.client(), store.RuntimeLoginInput{Email: "user@runtime.test", Password: pw, Fingerprint: "login-pc", Replay: w.replay()})
	}
	_, err := login("wrong password")
	runtimeWantCode(t, "Login(wrong password)", err, store.ECodeInvalidCreds)
	s, err := login("secret")
	if err != nil || len(s.Entitlements) != 1 || s.Entitlements[0] != "render" {
		t.Fatalf("Login = %+v, %v; want [render]", s, err)
	}
	w.wantReason(0, "the login session", s.AccessToken, "")

	// Rotation, the grace, reuse.
	w.clock.Advance(time.Minute)
	b, err := rt.Refresh(w.ctx, w.client(), s.RefreshToken)
	if err != nil || b.SessionID != s.SessionID || b.RefreshToken == s.RefreshToken {
		t.Fatalf("Refresh = %+v, %v", b, err)
	}
	_, err = rt.Refresh(w.ctx, w.client(), s.RefreshToken)
	runtimeWantCode(t, "Refresh(retired within the grace)", err, store.ECodeRefreshRotated)
	_, err = rt.Refresh(w.ctx, w.client(), s.SessionID+".forged")
	runtimeWantCode(t, "Refresh(forged)", err, store.ECodeInvalidToken)
	w.clock.Advance(10 * time.Second)
	_, err = rt.Refresh(w.ctx, w.client(), s.RefreshToken)
	runtimeWantCode(t, "Refresh(retired after the grace)", err, store.ECodeRefreshReused)
	w.wantReason(0, "after reuse", b.AccessToken, store.ReasonSessionRevoked)
	if r, err := w.dbs[0].SessionRevokeReason(w.ctx, s.SessionID); err != nil || r != store.RevokedRefreshReuse {
		t.Fatalf("SessionRevokeReason = %q, %v", r, err)
	}

	// The legacy form, found by its hash, current then retired.
	_, key := w.license(store.Plan{MaxDevices: 5})
	a := w.mustActivate(0, key, "legacy-pc")
	legacy, err := w.dbs[0].SeedLegacyRefreshToken(w.ctx, a.SessionID)
	if err != nil || strings.Contains(legacy, ".") {
		t.Fatalf("SeedLegacyRefreshToken = %q, %v", legacy, err)
	}
	c, err := rt.Refresh(w.ctx, w.client(), legacy)
	if err != nil || c.SessionID != a.SessionID {
		t.Fatalf("Refresh(legacy) = %+v, %v", c, err)
	}
	w.clock.Advance(10 * time.Second)
	_, err = rt.Refresh(w.ctx, w.client(), legacy)
	runtimeWantCode(t, "Refresh(legacy, retired after the grace)", err, store.ECodeRefreshReused)

	// Logout, twice.
	d := w.mustActivate(0, key, "logout-pc")
	for range 2 {
		if err := rt.Logout(w.ctx, w.client(), d.AccessToken); err != nil {
			t.Fatal(err)
		}
	}
	w.wantReason(0, "after logout", d.AccessToken, store.ReasonSessionRevoked)
	runtimeWantCode(t, "Logout(unknown)", rt.Logout(w.ctx, w.client(), "rt.unknown"), store.ECodeInvalidToken)

	// Last seen, the sweeps, the usage.
	e := w.mustActivate(0, key, "seen-pc")
	w.clock.Advance(6 * time.Minute)
	w.wantReason(0, "seen again", e.AccessToken, "")
	if n, err := rt.FlushSeen(w.ctx); err != nil || n != 1 {
		t.Fatalf("FlushSeen = %d, %v; want 1", n, err)
	}
	if n := w.count(`SELECT count(*) FROM sessions WHERE id = $1 AND last_seen_at = $2`, e.SessionID, w.clock.Now()); n != 1 {
		t.Fatalf("the session's last_seen_at was not written")
	}
	w.clock.Advance(5 * time.Minute)
	if n, err := rt.SweepNonces(w.ctx, 1000); err != nil || n == 0 {
		t.Fatalf("SweepNonces = %d, %v; want some", n, err)
	}
	w.clock.Advance(30 * 24 * time.Hour)
	if n, err := rt.SweepSessions(w.ctx, 2); err != nil || n != 2 {
		t.Fatalf("SweepSessions(2) = %d, %v", n, err)
	}
	if n, err := rt.SweepSessions(w.ctx, 100); err != nil || n == 0 {
		t.Fatalf("SweepSessions(the rest) = %d, %v", n, err)
	}
	if n := w.count(`SELECT count(*) FROM sessions`); n != 0 {
		t.Fatalf("%d sessions left after the sweep", n)
	}
}

// TestRuntimeRequestsTwoServers: the month's requests are the sum of what
// every server added.
func TestRuntimeRequestsTwoServers(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	now := w.clock.Now()
	runtimeParallel(20, func(i int) error {
		return w.rts[i%2].AddRuntimeRequests(w.ctx, now, map[string]int64{w.org: 3, "not-an-id": 5})
	})
	for srv := range 2 {
		if n, err := w.rts[srv].RuntimeRequests(w.ctx, w.org, now); err != nil || n != 60 {
			t.Fatalf("RuntimeRequests on server %d = %d, %v; want 60", srv, n, err)
		}
	}
	if n, err := w.rts[0].RuntimeRequests(w.ctx, w.org, now.AddDate(0, 1, 0)); err != nil || n != 0 {
		t.Fatalf("RuntimeRequests(next month) = %d, %v", n, err)
	}
}

// TestRuntimeResolveApp: by id and environment name, by public key, and the
// refusals.
func TestRuntimeResolveApp(t *testing.T) {
	w := newRuntimeWorld(t, 1)
	dev := w.app.Env(store.EnvDevelopment)
	for _, c := range []store.RuntimeClient{{AppID: w.app.ID, Env: store.EnvDevelopment}, {PublicKey: dev.PublicKey}} {
		ra, err := w.rts[0].ResolveApp(w.ctx, c)
		if err != nil || ra.App.ID != w.app.ID || ra.Env.ID != dev.ID {
			t.Fatalf("ResolveApp(%+v) = %+v, %v", c, ra, err)
		}
	}
	_, err := w.rts[0].ResolveApp(w.ctx, store.RuntimeClient{AppID: w.app.ID, Env: "staging"})
	runtimeWantCode(t, "ResolveApp(staging)", err, store.ECodeValidation)
	_, err = w.rts[0].ResolveApp(w.ctx, store.RuntimeClient{PublicKey: "pk_unknown"})
	runtimeWantCode(t, "ResolveApp(unknown key)", err, store.ECodeInvalidApp)
	_, err = w.rts[0].ResolveApp(w.ctx, store.RuntimeClient{AppID: "not-an-id"})
	runtimeWantCode(t, "ResolveApp(malformed id)", err, store.ECodeInvalidApp)
}

// TestRuntimeSweepsSkipWhileAnotherServerSweeps: a sweep whose pass lock
// another server holds does nothing this round, and its next round does
// the work.
func TestRuntimeSweepsSkipWhileAnotherServerSweeps(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	_, key := w.license(store.Plan{MaxDevices: 1})
	w.mustActivate(0, key, "sweep-pc")
	w.clock.Advance(30 * 24 * time.Hour)
	for _, c := range []struct {
		pass  string
		sweep func(context.Context, int) (int, error)
	}{{"runtime sessions", w.rts[0].SweepSessions}, {"runtime nonces", w.rts[0].SweepNonces}} {
		tx, err := w.dbs[1].pool.Begin(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var held bool
		if err := tx.QueryRow(w.ctx, `SELECT pg_try_advisory_xact_lock(`+passLockKey+`)`, c.pass).Scan(&held); err != nil || !held {
			t.Fatalf("taking %q on the other server: %v, %v", c.pass, held, err)
		}
		if n, err := c.sweep(w.ctx, 10); err != nil || n != 0 {
			t.Fatalf("%s while the other server sweeps = %d, %v; want 0", c.pass, n, err)
		}
		if err := tx.Rollback(w.ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := c.sweep(w.ctx, 10); err != nil || n != 1 {
			t.Fatalf("%s after = %d, %v; want 1", c.pass, n, err)
		}
	}
}

// TestRuntimeTwoServersOneNewDevice: one new fingerprint activated on many
// licenses at once over two servers is one device, bound to every license,
// and its doc lists them all (none lost to a concurrent rewrite).
func TestRuntimeTwoServersOneNewDevice(t *testing.T) {
	w := newRuntimeWorld(t, 2)
	var keys []string
	for range 8 {
		_, key := w.license(store.Plan{MaxDevices: 1})
		keys = append(keys, key)
	}
	codes := runtimeParallel(len(keys), func(i int) error {
		_, err := w.activate(i%2, keys[i], "shared-pc")
		return err
	})
	if codes["ok"] != len(keys) {
		t.Fatalf("activations of one new device on %d licenses: %v", len(keys), codes)
	}
	if n := w.count(`SELECT count(*) FROM devices WHERE fingerprint = 'shared-pc'`); n != 1 {
		t.Fatalf("%d devices, want 1", n)
	}
	if n := w.count(`SELECT count(*) FROM license_devices`); n != len(keys) {
		t.Fatalf("%d bindings, want %d", n, len(keys))
	}
	if n := w.count(`SELECT json_array_length(doc->'LicenseIDs') FROM devices WHERE fingerprint = 'shared-pc'`); n != len(keys) {
		t.Fatalf("the device's doc lists %d licenses, want %d", n, len(keys))
	}
}

package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl/store"
)

// The runtime options the suite opens the runtime with: the server's
// defaults where docs/design.md §5 names a rule by them (the ±5 minute replay
// window, the 10 s refresh grace).
const (
	accessTTL      = 15 * time.Minute
	refreshIdleTTL = 14 * 24 * time.Hour
	refreshAbsTTL  = 30 * 24 * time.Hour
	replayWindow   = 5 * time.Minute
	refreshGrace   = 10 * time.Second
)

// runtimeOptions are the suite's runtime options. The signer makes every
// token distinct (it names the session and the token id) and is a pure
// function of its input, as TokenSigner requires.
func runtimeOptions() store.RuntimeOptions {
	return store.RuntimeOptions{
		Signer: func(env *store.Environment, c store.AccessClaims) (string, error) {
			return "conformance." + env.Name + "." + c.SessionID + "." + c.ID, nil
		},
		SessionOf: func(tok string) string {
			if p := strings.Split(tok, "."); len(p) == 4 && p[0] == "conformance" {
				return p[2]
			}
			return ""
		},
		Issuer: "conformance", AccessTTL: accessTTL, RefreshIdleTTL: refreshIdleTTL, RefreshAbsoluteTTL: refreshAbsTTL,
		ReplayWindow: replayWindow, RefreshReuseGrace: refreshGrace,
	}
}

// runtime is the fixture's runtime API, opened once.
func (f *fixture) runtime() store.RuntimeBackend {
	f.rtOnce.Do(func() { f.rt = f.be.OpenRuntime(runtimeOptions()) })
	return f.rt
}

// client names the fixture's application in env ("" is production).
func (f *fixture) client(env string) store.RuntimeClient {
	return store.RuntimeClient{AppID: f.app.ID, Env: env}
}

// replay is a fresh nonce stamped with the store's time.
func (f *fixture) replay() store.Replay {
	return store.Replay{Timestamp: f.clock.Now(), Nonce: fmt.Sprintf("conformance-nonce-%08d", seq.Add(1))}
}

// activation activates key on the device of fingerprint in production.
func (f *fixture) activation(t *testing.T, key, fingerprint string) *store.Activation {
	t.Helper()
	a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: key, Fingerprint: fingerprint, Replay: f.replay()})
	if err != nil {
		t.Fatalf("Activate(%s): %v", fingerprint, err)
	}
	return a
}

// activateErr is the error of activating key on fingerprint in production.
func (f *fixture) activateErr(key, fingerprint string) error {
	_, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: key, Fingerprint: fingerprint, Replay: f.replay()})
	return err
}

// wantReason validates an access token and fails unless the answer is
// reason ("" for valid).
func (f *fixture) wantReason(t *testing.T, what, token, reason string) *store.Validation {
	t.Helper()
	v, err := f.runtime().Validate(f.ctx, f.client(""), token)
	if err != nil || v.Valid != (reason == "") || v.Reason != reason {
		t.Fatalf("%s: Validate = %+v, %v; want reason %q", what, v, err, reason)
	}
	return v
}

// endUser registers an end-user of the fixture's production environment and
// logs it in on fingerprint; it returns the user and its session.
func (f *fixture) endUser(t *testing.T, email, fingerprint string) (*store.EndUser, *store.RuntimeSession) {
	t.Helper()
	u, err := f.be.RegisterEndUser(f.ctx, f.scope(store.EnvProduction), email, Password)
	if err != nil {
		t.Fatalf("RegisterEndUser: %v", err)
	}
	s, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: email, Password: Password, Fingerprint: fingerprint, Replay: f.replay()})
	if err != nil {
		t.Fatalf("Login(%s): %v", email, err)
	}
	return u, s
}

// parallel runs fn n times at once and returns the error codes ("" for
// success) in call order.
func parallel(n int, fn func(i int) error) []string {
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(i); err != nil {
				codes[i] = store.ErrorCode(err)
			}
		}()
	}
	wg.Wait()
	return codes
}

// tally counts the codes and fails on any outside want.
func tally(t *testing.T, what string, codes []string, want ...string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, c := range codes {
		if !slices.Contains(want, c) {
			t.Fatalf("%s: code %q, want one of %q (all: %q)", what, c, want, codes)
		}
		n[c]++
	}
	return n
}

// testActivation: docs/design.md §6's activation rules, each refusal with its code.
func testActivation(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	ent, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "export", Name: "Export"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Month"), DurationDays: ptr(ptr(30)), MaxDevices: ptr(2), EntitlementIDs: &[]string{ent.ID}}, 1)
		a := f.activation(t, gen[0].Key, "act-ok-1")
		wantExp := store.ExpiresAfter(f.clock.Now(), 30)
		if a.LicenseStatus != store.LicenseActive || a.LicenseExpiresAt == nil || !a.LicenseExpiresAt.Equal(wantExp) ||
			!slices.Equal(a.Entitlements, []string{"export"}) || a.SessionID == "" || a.AccessToken == "" || a.RefreshToken == "" ||
			!a.AccessExpiresAt.Equal(f.clock.Now().Add(accessTTL)) {
			t.Fatalf("Activate = %+v; want active until %v with [export]", a, wantExp)
		}
		f.wantReason(t, "the new session", a.AccessToken, "")
		f.clock.Advance(time.Minute)
		again := f.activation(t, gen[0].Key, "act-ok-1") // the same device: a new session, no new binding
		if again.SessionID == a.SessionID || again.AccessToken == a.AccessToken || !again.LicenseExpiresAt.Equal(*a.LicenseExpiresAt) {
			t.Fatalf("second activation = %+v, first %+v", again, a)
		}
		f.activation(t, typed(gen[0].Key), "act-ok-2") // keys are read as people type them
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || len(l.Devices) != 2 || l.ActivatedAt == nil || !l.ActivatedAt.Equal(f.clock.Now().Add(-time.Minute)) {
			t.Fatalf("FindLicense = %+v, %v; want 2 devices, activated at the first activation", l, err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Checked")}, 1)
		for name, in := range map[string]store.ActivateInput{
			"no key":            {Fingerprint: "fp", Replay: f.replay()},
			"blank fingerprint": {LicenseKey: gen[0].Key, Fingerprint: " ", Replay: f.replay()},
			"no timestamp":      {LicenseKey: gen[0].Key, Fingerprint: "fp", Replay: store.Replay{Nonce: f.replay().Nonce}},
			"short nonce":       {LicenseKey: gen[0].Key, Fingerprint: "fp", Replay: store.Replay{Timestamp: f.clock.Now(), Nonce: "abc"}},
			"unprintable nonce": {LicenseKey: gen[0].Key, Fingerprint: "fp", Replay: store.Replay{Timestamp: f.clock.Now(), Nonce: "0123456789abcdef\x01"}},
		} {
			_, err := f.runtime().Activate(f.ctx, f.client(""), in)
			wantCode(t, "Activate("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantCode(t, "Activate(unknown key)", f.activateErr("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "fp"), store.ECodeNotFound)
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Prod")}, 1)
		_, err := f.runtime().Activate(f.ctx, f.client(store.EnvDevelopment), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "fp", Replay: f.replay()})
		wantCode(t, "Activate(production license in development)", err, store.ECodeNotFound)
	})
	t.Run("ErrDeviceLimitReached", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Two seats"), MaxDevices: ptr(2)}, 1)
		f.activation(t, gen[0].Key, "lim-1")
		f.activation(t, gen[0].Key, "lim-2")
		wantCode(t, "Activate(third device)", f.activateErr(gen[0].Key, "lim-3"), store.ECodeDeviceLimit)
		f.activation(t, gen[0].Key, "lim-1") // a bound device still gets a session
	})
	t.Run("ErrTrialAlreadyUsed", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Trial"), IsTrial: ptr(true)}, 2)
		f.activation(t, gen[0].Key, "trial-dev")
		f.activation(t, gen[0].Key, "trial-dev") // its own trial again
		wantCode(t, "Activate(second trial)", f.activateErr(gen[1].Key, "trial-dev"), store.ECodeTrialUsed)
		f.activation(t, gen[1].Key, "trial-dev-2")
	})
	t.Run("ErrLicenseStatus", func(t *testing.T) {
		for status, code := range map[string]string{store.LicenseRevoked: store.ECodeLicenseRevoked,
			store.LicenseSuspended: store.ECodeLicenseSuspend, store.LicenseBanned: store.ECodeLicenseBanned} {
			_, gen := f.licenses(t, store.PlanInput{Name: ptr("Status " + status)}, 1)
			if _, err := f.db.SetLicenseStatus(f.ctx, sc, gen[0].ID, status); err != nil {
				t.Fatal(err)
			}
			wantCode(t, "Activate("+status+")", f.activateErr(gen[0].Key, "st-"+status), code)
		}
		lapsing := f.dated(t, "Lapsing", f.clock.Now().Add(time.Minute))
		f.activation(t, lapsing.Key, "st-lapsing")
		f.clock.Advance(time.Minute)
		wantCode(t, "Activate(expired)", f.activateErr(lapsing.Key, "st-lapsing"), store.ECodeLicenseExpired)
	})
	t.Run("ErrDeviceBlocked", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Blocked")}, 2)
		dev := f.activate(t, gen[0].Key, "blocked-dev")
		if _, err := f.db.SetDeviceStatus(f.ctx, sc, dev.ID, store.DeviceBlocked); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Activate(blocked device, bound license)", f.activateErr(gen[0].Key, "blocked-dev"), store.ECodeDeviceBlocked)
		wantCode(t, "Activate(blocked device, new license)", f.activateErr(gen[1].Key, "blocked-dev"), store.ECodeDeviceBlocked)
	})
	t.Run("OKUserToken", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Owned"), MaxDevices: ptr(3)}, 1)
		u, us := f.endUser(t, "owner@runtime.test", "owner-pc")
		a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "owner-pc", UserToken: us.AccessToken, Replay: f.replay()})
		if err != nil {
			t.Fatal(err)
		}
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || l.UserID != u.ID {
			t.Fatalf("license after a user's activation = %+v, %v; want it assigned to %s", l, err, u.ID)
		}
		f.wantReason(t, "the user's license session", a.AccessToken, "")
		_, other := f.endUser(t, "other@runtime.test", "other-pc")
		_, err = f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "other-pc", UserToken: other.AccessToken, Replay: f.replay()})
		wantCode(t, "Activate(another user's license)", err, store.ECodeLicenseOwned)
		_, err = f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "owner-pc", UserToken: "not a token", Replay: f.replay()})
		wantCode(t, "Activate(bad user token)", err, store.ECodeInvalidToken)
	})
	t.Run("ErrApplication", func(t *testing.T) {
		g := newFixture(t, open)
		_, gen := g.licenses(t, store.PlanInput{Name: ptr("Off")}, 1)
		if err := g.db.DeleteApplication(g.ctx, g.ref(), false); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Activate(disabled application)", g.activateErr(gen[0].Key, "fp"), store.ECodeAppDisabled)
		_, err := g.runtime().Activate(g.ctx, store.RuntimeClient{AppID: store.NewID()}, store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "fp", Replay: g.replay()})
		wantCode(t, "Activate(unknown application)", err, store.ECodeInvalidApp)
	})
}

// typed is a license key as a person types it: lower case, no dashes.
func typed(key string) string {
	out := []byte{}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '-':
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// testActivationParallel: activations racing for the seats of one license
// never bind more than max_devices; parallel resets never take the quota
// below zero.
func testActivationParallel(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	t.Run("MaxDevices", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Three seats"), MaxDevices: ptr(3)}, 1)
		codes := parallel(30, func(i int) error { return f.activateErr(gen[0].Key, fmt.Sprintf("par-%d", i)) })
		if n := tally(t, "parallel activations", codes, "", store.ECodeDeviceLimit); n[""] != 3 {
			t.Fatalf("%d activations succeeded, want 3 (%q)", n[""], codes)
		}
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || len(l.Devices) != 3 {
			t.Fatalf("FindLicense = %+v, %v; want 3 devices", l, err)
		}
	})
	t.Run("ResetsNeverBelowZero", func(t *testing.T) {
		_, gen := f.licenses(t, store.PlanInput{Name: ptr("Five resets"), MaxDevices: ptr(12), DeviceResetLimit: ptr(5)}, 1)
		for i := range 12 {
			f.activation(t, gen[0].Key, fmt.Sprintf("rs-%d", i))
		}
		codes := parallel(12, func(i int) error {
			_, err := f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: gen[0].Key, Fingerprint: fmt.Sprintf("rs-%d", i)})
			return err
		})
		if n := tally(t, "parallel resets", codes, "", store.ECodeResetLimit); n[""] != 5 {
			t.Fatalf("%d resets succeeded, want 5 (%q)", n[""], codes)
		}
		l, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || l.DeviceResetsRemaining != 0 || len(l.Devices) != 7 {
			t.Fatalf("FindLicense = %+v, %v; want 0 resets left and 7 devices", l, err)
		}
	})
}

// testDeviceReset: a reset unbinds the device, ends its sessions of the
// license and spends one of the license's resets.
func testDeviceReset(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("One seat"), MaxDevices: ptr(1), DeviceResetLimit: ptr(2)}, 1)
	key := gen[0].Key
	reset := func(fp string) (int, error) {
		return f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: key, Fingerprint: fp})
	}
	t.Run("OK", func(t *testing.T) {
		a := f.activation(t, key, "reset-a")
		wantCode(t, "Activate(second seat)", f.activateErr(key, "reset-b"), store.ECodeDeviceLimit)
		if left, err := reset("reset-a"); err != nil || left != 1 {
			t.Fatalf("ResetDevice = %d, %v; want 1 left", left, err)
		}
		f.wantReason(t, "the reset device's session", a.AccessToken, store.ReasonSessionRevoked)
		f.activation(t, key, "reset-b")
		audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventLicenseDeviceReset})
		if err != nil || audit.Total != 1 {
			t.Fatalf("audit of the reset = %+v, %v", audit, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := reset("reset-a")
		wantCode(t, "ResetDevice(no longer bound)", err, store.ECodeNotFound)
		_, err = reset("never-seen")
		wantCode(t, "ResetDevice(unknown device)", err, store.ECodeNotFound)
		_, err = f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", Fingerprint: "reset-b"})
		wantCode(t, "ResetDevice(unknown license)", err, store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := reset("")
		wantCode(t, "ResetDevice(no fingerprint)", err, store.ECodeValidation)
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		if left, err := reset("reset-b"); err != nil || left != 0 {
			t.Fatalf("ResetDevice = %d, %v; want 0 left", left, err)
		}
		f.activation(t, key, "reset-c")
		_, err := reset("reset-c")
		wantCode(t, "ResetDevice(no resets left)", err, store.ECodeResetLimit)
	})
}

// testReplay: a nonce is single use for as long as a request carrying its
// timestamp could be accepted, even when the request was refused; the
// timestamp must be within the window; nonces are per environment.
func testReplay(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Replayed"), MaxDevices: ptr(10)}, 1)
	key := gen[0].Key
	activate := func(fp string, rp store.Replay) error {
		_, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: key, Fingerprint: fp, Replay: rp})
		return err
	}
	t.Run("ErrNonceReused", func(t *testing.T) {
		rp := f.replay()
		if err := activate("replay-1", rp); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Activate(same nonce)", activate("replay-1", rp), store.ECodeNonceReused)
		refused := f.replay()
		_, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", Fingerprint: "replay-2", Replay: refused})
		wantCode(t, "Activate(unknown key)", err, store.ECodeNotFound)
		wantCode(t, "Activate(nonce of a refused request)", activate("replay-2", refused), store.ECodeNonceReused)
		if _, err := f.be.RegisterEndUser(f.ctx, f.scope(store.EnvDevelopment), "replay@runtime.test", Password); err != nil {
			t.Fatal(err)
		}
		_, err = f.runtime().Login(f.ctx, f.client(store.EnvDevelopment), store.RuntimeLoginInput{Email: "replay@runtime.test", Password: Password, Fingerprint: "replay-3", Replay: rp})
		if err != nil {
			t.Fatalf("Login(production's nonce in development): %v", err)
		}
		audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventRuntimeReplayRejected})
		if err != nil || audit.Total != 2 {
			t.Fatalf("runtime.replay_rejected entries = %+v, %v; want 2", audit, err)
		}
	})
	t.Run("ErrStaleTimestamp", func(t *testing.T) {
		for _, d := range []time.Duration{-replayWindow - time.Second, replayWindow + time.Second} {
			rp := f.replay()
			rp.Timestamp = rp.Timestamp.Add(d)
			wantCode(t, fmt.Sprintf("Activate(%v off)", d), activate("stale", rp), store.ECodeStaleTimestamp)
		}
		rp := f.replay()
		rp.Timestamp = rp.Timestamp.Add(-replayWindow + time.Second).In(time.FixedZone("X", -3*3600))
		if err := activate("late", rp); err != nil {
			t.Fatalf("Activate(within the window, another offset): %v", err)
		}
		_, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: "nobody@runtime.test", Password: Password, Fingerprint: "stale",
			Replay: store.Replay{Timestamp: f.clock.Now().Add(-time.Hour), Nonce: f.replay().Nonce}})
		wantCode(t, "Login(stale)", err, store.ECodeStaleTimestamp)
	})
	t.Run("OKWindow", func(t *testing.T) {
		g := newFixture(t, open)
		_, gen := g.licenses(t, store.PlanInput{Name: ptr("Window"), MaxDevices: ptr(3)}, 1)
		rp := g.replay()
		again := func() error {
			_, err := g.runtime().Activate(g.ctx, g.client(""), store.ActivateInput{LicenseKey: gen[0].Key, Fingerprint: "window",
				Replay: store.Replay{Timestamp: g.clock.Now(), Nonce: rp.Nonce}})
			return err
		}
		if err := again(); err != nil {
			t.Fatal(err)
		}
		g.clock.Advance(replayWindow - time.Second)
		wantCode(t, "Activate(nonce within the window)", again(), store.ECodeNonceReused)
		if n, err := g.runtime().SweepNonces(g.ctx, 100); err != nil || n != 0 {
			t.Fatalf("SweepNonces within the window = %d, %v; want 0", n, err)
		}
		g.clock.Advance(time.Second)
		// Past its window a nonce is usable again, swept or not.
		if err := again(); err != nil {
			t.Fatalf("Activate(nonce past its window, fresh timestamp): %v", err)
		}
		wantCode(t, "Activate(nonce within its second window)", again(), store.ECodeNonceReused)
		// The sweeper may keep a spent nonce up to a minute past its window
		// (RuntimeBackend.SweepNonces), and may have kept each use apart.
		g.clock.Advance(replayWindow + time.Minute)
		if n, err := g.runtime().SweepNonces(g.ctx, 100); err != nil || n < 1 {
			t.Fatalf("SweepNonces a minute past the second use's window = %d, %v; want at least 1", n, err)
		}
		if n, err := g.runtime().SweepNonces(g.ctx, 100); err != nil || n != 0 {
			t.Fatalf("SweepNonces again = %d, %v; want 0", n, err)
		}
	})
}

// testRuntimeLogin: an end-user's login opens a session on the device, and
// is refused by the rules of docs/design.md §5.
func testRuntimeLogin(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	u, s := f.endUser(t, "login@runtime.test", "login-pc")
	login := func(email, password, fp string) error {
		_, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: email, Password: password, Fingerprint: fp, Replay: f.replay()})
		return err
	}
	t.Run("OK", func(t *testing.T) {
		if s.SessionID == "" || len(s.Entitlements) != 0 || s.Entitlements == nil {
			t.Fatalf("Login = %+v; want a session with no entitlements", s)
		}
		f.wantReason(t, "the login session", s.AccessToken, "")
		got, err := f.be.FindEndUser(f.ctx, f.org.ID, u.ID)
		if err != nil || got.LastLoginAt == nil || !got.LastLoginAt.Equal(f.clock.Now()) {
			t.Fatalf("FindEndUser after login = %+v, %v", got, err)
		}
	})
	t.Run("ErrNonceReused", func(t *testing.T) {
		in := store.RuntimeLoginInput{Email: "login@runtime.test", Password: Password, Fingerprint: "login-pc", Replay: f.replay()}
		if _, err := f.runtime().Login(f.ctx, f.client(""), in); err != nil {
			t.Fatal(err)
		}
		_, err := f.runtime().Login(f.ctx, f.client(""), in)
		wantCode(t, "Login(same nonce)", err, store.ECodeNonceReused)
	})
	t.Run("ErrInvalidCredentials", func(t *testing.T) {
		wantCode(t, "Login(wrong password)", login("login@runtime.test", "wrong password 12345", "login-pc"), store.ECodeInvalidCreds)
		wantCode(t, "Login(unknown)", login("nobody@runtime.test", Password, "login-pc"), store.ECodeInvalidCreds)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantCode(t, "Login(bad address)", login("not an address", Password, "login-pc"), store.ECodeValidation)
		wantCode(t, "Login(no password)", login("login@runtime.test", "", "login-pc"), store.ECodeValidation)
		wantCode(t, "Login(no fingerprint)", login("login@runtime.test", Password, ""), store.ECodeValidation)
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		for _, st := range []string{store.UserBanned, store.UserDisabled} {
			if _, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, st); err != nil {
				t.Fatal(err)
			}
			wantCode(t, "Login("+st+")", login("login@runtime.test", Password, "login-pc"), store.ECodeForbidden)
		}
		if _, err := f.db.SetEndUserStatus(f.ctx, sc, u.ID, store.UserActive); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrDeviceBlocked", func(t *testing.T) {
		p, err := f.db.ListDevices(f.ctx, sc, store.StatusFilter{Fingerprint: "login-pc"})
		if err != nil || p.Total != 1 || p.Data[0].UserID != u.ID {
			t.Fatalf("the login's device = %+v, %v", p, err)
		}
		if _, err := f.db.SetDeviceStatus(f.ctx, sc, p.Data[0].ID, store.DeviceBlocked); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Login(blocked device)", login("login@runtime.test", Password, "login-pc"), store.ECodeDeviceBlocked)
		if err := login("login@runtime.test", Password, "login-other-pc"); err != nil {
			t.Fatalf("Login(another device): %v", err)
		}
	})
}

// testLogout: logout revokes the session of an access token, once or twice.
func testLogout(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Logout")}, 1)
	a := f.activation(t, gen[0].Key, "logout-pc")
	for range 2 { // an already revoked session is not an error
		if err := f.runtime().Logout(f.ctx, f.client(""), a.AccessToken); err != nil {
			t.Fatalf("Logout: %v", err)
		}
	}
	f.wantReason(t, "after logout", a.AccessToken, store.ReasonSessionRevoked)
	_, err := f.runtime().Refresh(f.ctx, f.client(""), a.RefreshToken)
	wantCode(t, "Refresh(after logout)", err, store.ECodeSessionInvalid)
	wantCode(t, "Logout(empty)", f.runtime().Logout(f.ctx, f.client(""), ""), store.ECodeInvalidToken)
	wantCode(t, "Logout(unknown)", f.runtime().Logout(f.ctx, f.client(""), "conformance.unknown"), store.ECodeInvalidToken)
	b := f.activation(t, gen[0].Key, "logout-pc")
	wantCode(t, "Logout(other environment)", f.runtime().Logout(f.ctx, f.client(store.EnvDevelopment), b.AccessToken), store.ECodeInvalidToken)
	f.wantReason(t, "after a logout in another environment", b.AccessToken, "")
	wantCode(t, "Logout(unknown application)", f.runtime().Logout(f.ctx, store.RuntimeClient{AppID: store.NewID()}, b.AccessToken), store.ECodeInvalidApp)
	// Ending a session is never refused for the application's state: a
	// disabled application's user may still sign out.
	if err := f.db.DeleteApplication(f.ctx, f.ref(), false); err != nil {
		t.Fatal(err)
	}
	if err := f.runtime().Logout(f.ctx, f.client(""), b.AccessToken); err != nil {
		t.Fatalf("Logout(disabled application): %v", err)
	}
	if _, err := f.db.UpdateApplication(f.ctx, f.ref(), store.ApplicationUpdate{Status: ptr(store.AppActive)}); err != nil {
		t.Fatal(err)
	}
	f.wantReason(t, "after a logout while the application was disabled", b.AccessToken, store.ReasonSessionRevoked)
}

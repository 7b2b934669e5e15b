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

// testResetWindow: with device_reset_window_days the reset limit holds
// within any rolling window of that many days (docs/design.md §13): the refusal
// names when the oldest reset leaves the window, and
// device_resets_remaining counts only the resets inside it.
func testResetWindow(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Windowed"), MaxDevices: ptr(1), DeviceResetLimit: ptr(2), DeviceResetWindowDays: ptr(30)}, 1)
	key, id := gen[0].Key, gen[0].ID
	reset := func(fp string) (int, error) {
		f.activation(t, key, fp)
		return f.runtime().ResetDevice(f.ctx, f.client(""), store.DeviceResetInput{LicenseKey: key, Fingerprint: fp})
	}
	left := func() int {
		t.Helper()
		d, err := f.db.FindLicense(f.ctx, f.scope(store.EnvProduction), id)
		if err != nil {
			t.Fatalf("FindLicense: %v", err)
		}
		return d.DeviceResetsRemaining
	}
	first := f.clock.Now()
	if n, err := reset("win-a"); err != nil || n != 1 {
		t.Fatalf("ResetDevice = %d, %v; want 1 left", n, err)
	}
	f.clock.Advance(10 * 24 * time.Hour)
	if n, err := reset("win-b"); err != nil || n != 0 {
		t.Fatalf("ResetDevice = %d, %v; want 0 left", n, err)
	}
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		f.clock.Advance(5 * 24 * time.Hour)
		_, err := reset("win-c")
		wantCode(t, "ResetDevice(window full)", err, store.ECodeResetLimit)
		want := int(first.Add(30*24*time.Hour).Sub(f.clock.Now()) / time.Second)
		if e := store.AsError(err); e == nil || e.RetryAfter != want {
			t.Fatalf("RetryAfter of %v = %+v, want %d s (until the first reset leaves the window)", err, e, want)
		}
		if n := left(); n != 0 {
			t.Fatalf("device_resets_remaining = %d, want 0", n)
		}
	})
	t.Run("OK", func(t *testing.T) {
		// The first reset leaves the window: one is free again, and only one.
		f.clock.Set(first.Add(30*24*time.Hour + time.Second))
		if n := left(); n != 1 {
			t.Fatalf("device_resets_remaining once the first reset left the window = %d, want 1", n)
		}
		if n, err := reset("win-c"); err != nil || n != 0 {
			t.Fatalf("ResetDevice = %d, %v; want 0 left", n, err)
		}
		_, err := reset("win-d")
		wantCode(t, "ResetDevice(window full again)", err, store.ECodeResetLimit)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, days := range []int{-1, store.MaxResetWindowDays + 1} {
			_, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Bad window"), DeviceResetWindowDays: ptr(days)})
			wantCode(t, "CreatePlan(device_reset_window_days)", err, store.ECodeValidation)
		}
		p, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Longest window"), DeviceResetWindowDays: ptr(store.MaxResetWindowDays)})
		if err != nil || p.DeviceResetWindowDays != store.MaxResetWindowDays {
			t.Fatalf("CreatePlan = %+v, %v", p, err)
		}
		if p, err = f.db.FindPlan(f.ctx, f.ref(), p.ID); err != nil || p.DeviceResetWindowDays != store.MaxResetWindowDays {
			t.Fatalf("FindPlan = %+v, %v", p, err)
		}
	})
}

// testFloatingSeats: with max_concurrent a device needs a live lease
// (docs/design.md §13): N parallel checkouts on M seats give exactly M holders;
// a lease lives lease_seconds without heartbeats (the harness clock moves,
// nothing sleeps); validation says lease_required without one; suspension
// and a device block end leases; support lists and frees seats.
func testFloatingSeats(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	p, gen := f.licenses(t, store.PlanInput{Name: ptr("Floating"), MaxDevices: ptr(4), MaxConcurrent: ptr(2), LeaseSeconds: ptr(60)}, 2)
	if p.MaxConcurrent != 2 || p.LeaseSeconds != 60 {
		t.Fatalf("plan = %+v", p)
	}
	key, licID := gen[0].Key, gen[0].ID
	sessions := make([]*store.Activation, 4)
	for i := range sessions {
		sessions[i] = f.activation(t, key, fmt.Sprintf("seat-%d", i))
		f.wantReason(t, "a device without a lease", sessions[i].AccessToken, store.ReasonLeaseRequired)
	}
	checkout := func(i int) (*store.LeaseGrant, error) {
		return f.runtime().CheckoutLease(f.ctx, f.client(""), sessions[i].AccessToken, f.replay())
	}
	var holders []int
	t.Run("ParallelCheckouts", func(t *testing.T) {
		codes, grants := make([]string, 20), make([]*store.LeaseGrant, 20)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, err := checkout(i % 4)
				codes[i], grants[i] = store.ErrorCode(err), g
				if e := store.AsError(err); e != nil && e.Code == store.ECodeSeatsExhausted && (e.RetryAfter < 1 || e.RetryAfter > 60) {
					codes[i] = "bad Retry-After"
				}
			}()
		}
		wg.Wait()
		tally(t, "parallel checkouts", codes, "", store.ECodeSeatsExhausted)
		devs := map[int]string{}
		for i, g := range grants {
			if g == nil {
				continue
			}
			if id, ok := devs[i%4]; ok && id != g.ID {
				t.Fatalf("device %d holds two leases: %s and %s", i%4, id, g.ID)
			}
			devs[i%4] = g.ID
			if g.MaxConcurrent != 2 || g.SeatsInUse < 1 || g.SeatsInUse > 2 {
				t.Fatalf("grant = %+v", g)
			}
		}
		if len(devs) != 2 {
			t.Fatalf("%d devices hold a seat, want exactly 2 (%q)", len(devs), codes)
		}
		for i := range 4 {
			if _, ok := devs[i]; ok {
				holders = append(holders, i)
				f.wantReason(t, "a holder", sessions[i].AccessToken, "")
			} else {
				f.wantReason(t, "a device without a seat", sessions[i].AccessToken, store.ReasonLeaseRequired)
			}
		}
		list, err := f.db.ListLeases(f.ctx, sc, licID)
		if err != nil || len(list) != 2 {
			t.Fatalf("ListLeases = %d, %v; want 2", len(list), err)
		}
	})
	if len(holders) != 2 {
		t.FailNow()
	}
	others := []int{}
	for i := range 4 {
		if !slices.Contains(holders, i) {
			others = append(others, i)
		}
	}
	var kept *store.LeaseGrant
	t.Run("ExpiryWithoutHeartbeat", func(t *testing.T) {
		var err error
		kept, err = checkout(holders[0]) // the same lease, extended
		if err != nil || kept.SeatsInUse != 2 {
			t.Fatalf("re-checkout = %+v, %v", kept, err)
		}
		f.clock.Advance(50 * time.Second)
		hb, err := f.runtime().HeartbeatLease(f.ctx, f.client(""), store.LeaseInput{AccessToken: sessions[holders[0]].AccessToken, LeaseID: kept.ID})
		if err != nil || !hb.ExpiresAt.Equal(f.clock.Now().Add(60*time.Second)) {
			t.Fatalf("HeartbeatLease = %+v, %v", hb, err)
		}
		f.clock.Advance(11 * time.Second) // the other holder's lease is 61 s old
		f.wantReason(t, "a lease past lease_seconds", sessions[holders[1]].AccessToken, store.ReasonLeaseRequired)
		f.wantReason(t, "a heartbeating holder", sessions[holders[0]].AccessToken, "")
		g, err := checkout(others[0])
		if err != nil || g.SeatsInUse != 2 {
			t.Fatalf("checkout onto the freed seat = %+v, %v", g, err)
		}
		n, err := f.runtime().SweepLeases(f.ctx, 100)
		if err != nil || n != 1 {
			t.Fatalf("SweepLeases = %d, %v; want 1", n, err)
		}
		audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLeaseExpired})
		if err != nil || audit.Total != 1 {
			t.Fatalf("lease_expired events = %+v, %v", audit, err)
		}
	})
	t.Run("ErrSeatsExhausted", func(t *testing.T) {
		_, err := checkout(holders[1])
		wantCode(t, "CheckoutLease(full)", err, store.ECodeSeatsExhausted)
		if e := store.AsError(err); e.RetryAfter != 49 {
			t.Fatalf("RetryAfter = %d, want 49 (the first lease ends then)", e.RetryAfter)
		}
	})
	t.Run("ErrLeaseNotFound", func(t *testing.T) {
		in := store.LeaseInput{AccessToken: sessions[holders[0]].AccessToken, LeaseID: kept.ID}
		if err := f.runtime().ReleaseLease(f.ctx, f.client(""), in); err != nil {
			t.Fatalf("ReleaseLease: %v", err)
		}
		wantCode(t, "ReleaseLease(released)", f.runtime().ReleaseLease(f.ctx, f.client(""), in), store.ECodeLeaseNotFound)
		_, err := f.runtime().HeartbeatLease(f.ctx, f.client(""), in)
		wantCode(t, "HeartbeatLease(released)", err, store.ECodeLeaseNotFound)
		wantCode(t, "ReleaseLicenseLease(released)", f.db.ReleaseLicenseLease(f.ctx, sc, licID, kept.ID), store.ECodeLeaseNotFound)
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		_, err := f.runtime().CheckoutLease(f.ctx, f.client(""), "not-a-token", f.replay())
		wantCode(t, "CheckoutLease(bad token)", err, store.ECodeSessionInvalid)
		rp := f.replay()
		if _, err := checkout(holders[0]); err != nil {
			t.Fatal(err)
		}
		_, err = f.runtime().CheckoutLease(f.ctx, f.client(""), sessions[holders[0]].AccessToken, rp)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.runtime().CheckoutLease(f.ctx, f.client(""), sessions[holders[0]].AccessToken, rp)
		wantCode(t, "CheckoutLease(nonce reused)", err, store.ECodeNonceReused)
	})
	t.Run("EndedBySupportBlockAndSuspension", func(t *testing.T) {
		list, err := f.db.ListLeases(f.ctx, sc, licID)
		if err != nil || len(list) != 2 {
			t.Fatalf("ListLeases = %+v, %v", list, err)
		}
		if err := f.db.ReleaseLicenseLease(f.ctx, sc, licID, list[0].ID); err != nil {
			t.Fatalf("ReleaseLicenseLease: %v", err)
		}
		blocked := list[1].DeviceID
		if _, err := f.db.SetDeviceStatus(f.ctx, sc, blocked, store.DeviceBlocked); err != nil {
			t.Fatal(err)
		}
		if list, _ = f.db.ListLeases(f.ctx, sc, licID); len(list) != 0 {
			t.Fatalf("leases after a release and a block = %+v", list)
		}
		g, err := checkout(others[1])
		if err != nil {
			t.Fatalf("checkout: %v", err)
		}
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, licID, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
		if list, _ = f.db.ListLeases(f.ctx, sc, licID); len(list) != 0 {
			t.Fatalf("leases of a suspended license = %+v (lease %s)", list, g.ID)
		}
		audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLeaseReleased})
		if err != nil || audit.Total != 4 {
			t.Fatalf("lease_released events = %d, %v; want 4 (runtime, support, block, suspension)", audit.Total, err)
		}
		wantCode(t, "ListLeases(another license's id)", func() error { _, err := f.db.ListLeases(f.ctx, sc, store.NewID()); return err }(), store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, in := range map[string]store.PlanInput{
			"max_concurrent above max_devices": {Name: ptr("X"), MaxDevices: ptr(2), MaxConcurrent: ptr(3)},
			"max_concurrent negative":          {Name: ptr("X"), MaxConcurrent: ptr(-1)},
			"lease_seconds 59":                 {Name: ptr("X"), LeaseSeconds: ptr(59)},
			"lease_seconds 86401":              {Name: ptr("X"), LeaseSeconds: ptr(86_401)},
		} {
			_, err := f.db.CreatePlan(f.ctx, f.ref(), in)
			wantCode(t, "CreatePlan("+name+")", err, store.ECodeValidation)
		}
		_, err := f.db.UpdatePlan(f.ctx, f.ref(), p.ID, store.PlanInput{MaxDevices: ptr(1)})
		wantCode(t, "UpdatePlan(max_devices below max_concurrent)", err, store.ECodeValidation)
		d, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Defaults")})
		if err != nil || d.MaxConcurrent != 0 || d.LeaseSeconds != store.DefaultLeaseSeconds {
			t.Fatalf("defaults = %+v, %v", d, err)
		}
	})
	t.Run("LoginSessionNeedsALease", func(t *testing.T) {
		// A login session grants the union of its user's licenses, but a
		// license with floating seats only to a device holding a live lease
		// of it (docs/design.md §13): logins on other devices must not use
		// it without a seat.
		ent, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "floating.pro", Name: "Floating Pro"})
		if err != nil {
			t.Fatal(err)
		}
		_, owned := f.licenses(t, store.PlanInput{Name: ptr("Floating owned"), MaxDevices: ptr(3), MaxConcurrent: ptr(1), LeaseSeconds: ptr(60),
			EntitlementIDs: &[]string{ent.ID}}, 1)
		_, us := f.endUser(t, "floater@runtime.test", "float-pc-1")
		a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: owned[0].Key, Fingerprint: "float-pc-1", UserToken: us.AccessToken, Replay: f.replay()})
		if err != nil {
			t.Fatal(err)
		}
		login := func(fp string) *store.RuntimeSession {
			s, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: "floater@runtime.test", Password: Password, Fingerprint: fp, Replay: f.replay()})
			if err != nil {
				t.Fatalf("Login(%s): %v", fp, err)
			}
			return s
		}
		wantEnts := func(what string, s *store.RuntimeSession, want string) {
			t.Helper()
			v := f.wantReason(t, what, s.AccessToken, "")
			if got := fmt.Sprint(v.Entitlements); got != want {
				t.Fatalf("%s: entitlements %s, want %s", what, got, want)
			}
		}
		first := login("float-pc-1")
		if fmt.Sprint(first.Entitlements) != "[]" {
			t.Fatalf("a login without a lease was granted %v", first.Entitlements)
		}
		wantEnts("a login on a device without a lease", first, "[]")
		if _, err := f.runtime().CheckoutLease(f.ctx, f.client(""), a.AccessToken, f.replay()); err != nil {
			t.Fatal(err)
		}
		wantEnts("a login on the device holding the seat", first, "[floating.pro]")
		if s := login("float-pc-1"); fmt.Sprint(s.Entitlements) != "[floating.pro]" {
			t.Fatalf("a login on the leased device was granted %v", s.Entitlements)
		}
		second := login("float-pc-2")
		if fmt.Sprint(second.Entitlements) != "[]" {
			t.Fatalf("a login on another device while the only seat is taken was granted %v", second.Entitlements)
		}
		wantEnts("a login on another device while the only seat is taken", second, "[]")
		f.clock.Advance(60 * time.Second)
		wantEnts("a login on the device whose lease ran out", first, "[]")
	})
	t.Run("ExpiryWithoutAnyWrite", func(t *testing.T) {
		// Nothing is written between the two validations: an answer a
		// store remembers must not outlive the lease.
		s := f.activation(t, gen[1].Key, "seat-quiet")
		if _, err := f.runtime().CheckoutLease(f.ctx, f.client(""), s.AccessToken, f.replay()); err != nil {
			t.Fatal(err)
		}
		f.wantReason(t, "a fresh lease", s.AccessToken, "")
		f.clock.Advance(60 * time.Second)
		f.wantReason(t, "the lease at its expiry", s.AccessToken, store.ReasonLeaseRequired)
		// The device checks out again before any sweep: its lapsed lease
		// ends there, with its lease.expired entry, and a new one starts.
		events := func(event string) []*store.AuditEntry {
			t.Helper()
			all, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{TargetID: gen[1].ID})
			if err != nil {
				t.Fatal(err)
			}
			var out []*store.AuditEntry
			for _, e := range all.Data {
				if e.Event == event {
					out = append(out, e)
				}
			}
			return out
		}
		started := events(store.EventLeaseStarted)
		if len(started) != 1 {
			t.Fatalf("lease_started events = %d, want 1", len(started))
		}
		g, err := f.runtime().CheckoutLease(f.ctx, f.client(""), s.AccessToken, f.replay())
		if err != nil || g.SeatsInUse != 1 || g.ID == started[0].Metadata["lease_id"] {
			t.Fatalf("checkout after the lapse = %+v, %v", g, err)
		}
		expired := events(store.EventLeaseExpired)
		if len(expired) != 1 || expired[0].Metadata["lease_id"] != started[0].Metadata["lease_id"] || expired[0].Actor.Type != store.ActorSystem {
			t.Fatalf("lease_expired events of the lapsed lease = %+v", expired)
		}
		f.wantReason(t, "the new lease", s.AccessToken, "")
	})
}

// testMachineFile: a machine file's content and TTL (docs/design.md §13): the
// plan's max_offline_days bounds it (0 refuses), a requested ttl shortens
// it, the license's expiry caps it; the license key must be the session's.
func testMachineFile(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Offline"), MaxDevices: ptr(2), MaxOfflineDays: ptr(2)}, 2)
	a := f.activation(t, gen[0].Key, "mf-a")
	checkout := func(in store.MachineFileInput) (*store.MachineFile, error) {
		if in.AccessToken == "" {
			in.AccessToken = a.AccessToken
		}
		in.Replay = f.replay()
		return f.runtime().CheckoutMachineFile(f.ctx, f.client(""), in)
	}
	t.Run("OK", func(t *testing.T) {
		mf, err := checkout(store.MachineFileInput{Encrypt: true, LicenseKey: strings.ToLower(gen[0].Key)})
		now := f.clock.Now()
		if err != nil || mf.TTL != 2*86400 || !mf.IssuedAt.Equal(now) || !mf.ExpiresAt.Equal(now.Add(48*time.Hour)) ||
			mf.Device.Fingerprint != "mf-a" || mf.License.ID != gen[0].ID || mf.License.Status != store.LicenseActive ||
			mf.Plan.MaxDevices != 2 || mf.Env == nil || mf.Env.KeyID == "" || len(mf.Env.SigningKey) == 0 || mf.User != nil {
			t.Fatalf("CheckoutMachineFile = %+v, %v", mf, err)
		}
		if mf, err = checkout(store.MachineFileInput{TTL: 3600}); err != nil || mf.TTL != 3600 || !mf.ExpiresAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("CheckoutMachineFile(ttl 3600) = %+v, %v", mf, err)
		}
		audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLicenseCheckedOut})
		if err != nil || audit.Total != 2 {
			t.Fatalf("license.checked_out events = %+v, %v", audit, err)
		}
	})
	t.Run("OKCappedByLicenseExpiry", func(t *testing.T) {
		lic := f.dated(t, "Dated", f.clock.Now().Add(time.Hour))
		s := f.activation(t, lic.Key, "mf-dated")
		mf, err := checkout(store.MachineFileInput{AccessToken: s.AccessToken})
		if err != nil || mf.ExpiresAt.After(f.clock.Now().Add(time.Hour)) {
			t.Fatalf("a file outliving its license: %+v, %v", mf, err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, ttl := range []int{store.MinMachineFileTTL - 1, 2*86400 + 1} {
			_, err := checkout(store.MachineFileInput{TTL: ttl})
			wantCode(t, fmt.Sprintf("CheckoutMachineFile(ttl %d)", ttl), err, store.ECodeValidation)
		}
		_, err := checkout(store.MachineFileInput{Encrypt: true})
		wantCode(t, "CheckoutMachineFile(encrypt without license_key)", err, store.ECodeValidation)
		_, err = f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Too long"), MaxOfflineDays: ptr(store.MaxOfflineDays + 1)})
		wantCode(t, "CreatePlan(max_offline_days 366)", err, store.ECodeValidation)
	})
	t.Run("ErrLicenseMismatch", func(t *testing.T) {
		_, err := checkout(store.MachineFileInput{Encrypt: true, LicenseKey: gen[1].Key})
		wantCode(t, "CheckoutMachineFile(another license's key)", err, store.ECodeLicenseMismatch)
	})
	t.Run("ErrSessionInvalid", func(t *testing.T) {
		_, err := checkout(store.MachineFileInput{AccessToken: "nope"})
		wantCode(t, "CheckoutMachineFile(bad token)", err, store.ECodeSessionInvalid)
	})
	t.Run("ErrOfflineNotAllowed", func(t *testing.T) {
		p, none := f.licenses(t, store.PlanInput{Name: ptr("Online only"), MaxOfflineDays: ptr(0)}, 1)
		if p.MaxOfflineDays != 0 {
			t.Fatalf("plan = %+v", p)
		}
		s := f.activation(t, none[0].Key, "mf-online")
		_, err := checkout(store.MachineFileInput{AccessToken: s.AccessToken})
		wantCode(t, "CheckoutMachineFile(max_offline_days 0)", err, store.ECodeOfflineNotAllowed)
		d, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Default offline")})
		if err != nil || d.MaxOfflineDays != store.DefaultOfflineDays {
			t.Fatalf("default max_offline_days = %+v, %v", d, err)
		}
	})
}

// testSeatsEndedByStatus: blocking a device frees its seats on every
// license, suspending a license frees the seats of all its devices; each
// live lease ends with its lease.released entry by the status change's
// actor, naming the change, newest lease first and before the change's
// own entry. A lapsed lease is not released: the sweep expires it.
func testSeatsEndedByStatus(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Floating"), MaxDevices: ptr(4), MaxConcurrent: ptr(2), LeaseSeconds: ptr(60)}, 2)
	checkout := func(key, fingerprint string) *store.Lease {
		a := f.activation(t, key, fingerprint)
		g, err := f.runtime().CheckoutLease(f.ctx, f.client(""), a.AccessToken, f.replay())
		if err != nil {
			t.Fatalf("CheckoutLease(%s): %v", fingerprint, err)
		}
		f.clock.Advance(time.Second)
		return &g.Lease
	}
	// listed is the lease as the store lists it (PostgreSQL rounds times).
	listed := func(l *store.Lease) *store.Lease {
		list, err := f.db.ListLeases(f.ctx, sc, l.LicenseID)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range list {
			if got.ID == l.ID {
				return got
			}
		}
		t.Fatalf("lease %s is not listed: %+v", l.ID, list)
		return nil
	}
	// A lapsed lease holds no seat: the suspension leaves it to the sweep.
	lapsed := checkout(gen[0].Key, "status-c")
	f.clock.Advance(time.Minute)
	aOnFirst := listed(checkout(gen[0].Key, "status-a"))
	bOnFirst := listed(checkout(gen[0].Key, "status-b"))
	aOnSecond := listed(checkout(gen[1].Key, "status-a"))
	if aOnFirst.DeviceID != aOnSecond.DeviceID {
		t.Fatalf("one fingerprint, two devices: %s, %s", aOnFirst.DeviceID, aOnSecond.DeviceID)
	}
	steps := []struct {
		name   string
		change func() error
		event  string
		ended  []*store.Lease
	}{
		{"DeviceBlocked", func() error {
			_, err := f.db.SetDeviceStatus(f.ctx, sc, aOnFirst.DeviceID, store.DeviceBlocked)
			return err
		}, store.EventDeviceBlocked, []*store.Lease{aOnSecond, aOnFirst}},
		{"LicenseSuspended", func() error {
			_, err := f.db.SetLicenseStatus(f.ctx, sc, gen[0].ID, store.LicenseSuspended)
			return err
		}, store.EventLicenseSuspended, []*store.Lease{bOnFirst}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if err := step.change(); err != nil {
				t.Fatal(err)
			}
			// The newest entries, newest first: the change's own, then the
			// leases' in reverse order of writing.
			page, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{PageRequest: store.PageRequest{PerPage: len(step.ended) + 1}})
			if err != nil || len(page.Data) != len(step.ended)+1 {
				t.Fatalf("ListAudit = %+v, %v", page, err)
			}
			change := page.Data[0]
			if change.Event != step.event {
				t.Fatalf("newest entry = %s, want %s", change.Event, step.event)
			}
			for i, l := range step.ended {
				e := page.Data[len(step.ended)-i]
				want := map[string]any{"lease_id": l.ID, "device_id": l.DeviceID, "expires_at": l.ExpiresAt.Format(time.RFC3339Nano), "by": step.event}
				if e.Event != store.EventLeaseReleased || e.Target != (store.Target{Type: "license", ID: l.LicenseID}) || e.Actor != change.Actor ||
					e.EnvID != change.EnvID || e.AppID != f.app.ID || e.OrgID != f.org.ID || fmt.Sprint(e.Metadata) != fmt.Sprint(want) {
					t.Fatalf("entry %d = %+v; want %s of license %s by %+v with %v", i, e, store.EventLeaseReleased, l.LicenseID, change.Actor, want)
				}
			}
		})
	}
	for _, lic := range gen {
		if list, err := f.db.ListLeases(f.ctx, sc, lic.ID); err != nil || len(list) != 0 {
			t.Fatalf("leases of %s after the block and the suspension = %+v, %v", lic.ID, list, err)
		}
	}
	if n, err := f.runtime().SweepLeases(f.ctx, 100); err != nil || n != 1 {
		t.Fatalf("SweepLeases = %d, %v; want 1 (lease %s, lapsed before the suspension)", n, err, lapsed.ID)
	}
	page, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLeaseExpired})
	if err != nil || page.Total != 1 || page.Data[0].Metadata["lease_id"] != lapsed.ID {
		t.Fatalf("lease_expired entries = %+v, %v; want the lapsed lease's", page, err)
	}
}

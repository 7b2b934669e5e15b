package storetest

import (
	"fmt"
	"slices"
	"testing"

	"licensectl/store"
)

// components is a device's components named machine, disk, mac, … with
// the hashes given, in that order.
func components(hashes ...string) []store.DeviceComponent {
	names := []string{"machine_id", "disk_serial", "mac", "os_install", "extra"}
	out := make([]store.DeviceComponent, len(hashes))
	for i, h := range hashes {
		out[i] = store.DeviceComponent{Name: names[i], Hash: h}
	}
	return out
}

// activateWith activates key on fingerprint with components.
func (f *fixture) activateWith(key, fingerprint string, cs []store.DeviceComponent) (*store.Activation, error) {
	return f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: key, Fingerprint: fingerprint, Components: cs, Replay: f.replay()})
}

// deviceByFingerprint is the device of the production environment with this
// fingerprint, nil when there is none.
func (f *fixture) deviceByFingerprint(t *testing.T, fp string) *store.Device {
	t.Helper()
	p, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{Fingerprint: fp})
	if err != nil {
		t.Fatalf("ListDevices(%s): %v", fp, err)
	}
	if p.Total == 0 {
		return nil
	}
	return p.Data[0]
}

// wantBoundOnce activates key again on fp, which a re-bind gave device
// deviceID: an ordinary activation, re-binding nothing more.
func (f *fixture) wantBoundOnce(t *testing.T, key, fp string, cs []store.DeviceComponent, deviceID string) {
	t.Helper()
	if _, err := f.activateWith(key, fp, cs); err != nil {
		t.Fatal(err)
	}
	if n := len(f.rebounds(t, deviceID)); n != 1 {
		t.Fatalf("%d re-binds after activating the bound fingerprint again, want 1", n)
	}
}

// otherKey is the key of a new license of a plan of its own, one seat.
func (f *fixture) otherKey(t *testing.T, in store.PlanInput) string {
	t.Helper()
	in.Name = ptr(fmt.Sprint("Rebind other ", seq.Add(1)))
	if in.IsTrial != nil && *in.IsTrial {
		in.DurationDays = ptr(ptr(14))
	}
	_, gen := f.licenses(t, in, 1)
	return gen[0].Key
}

// rebounds are the device.rebound audit entries of one device.
func (f *fixture) rebounds(t *testing.T, deviceID string) []*store.AuditEntry {
	t.Helper()
	p, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventDeviceRebound, PageRequest: store.PageRequest{PerPage: 100}})
	if err != nil {
		t.Fatalf("ListAudit(device.rebound): %v", err)
	}
	var out []*store.AuditEntry
	for _, e := range p.Data {
		if e.Target.ID == deviceID {
			out = append(out, e)
		}
	}
	return out
}

// testRebind: a bound device recognised by most of its components under a
// new fingerprint takes it, without a seat or a reset, and its old sessions
// end (docs/design.md §17), and so is a known device not bound to the
// license, which takes the binding; half the components, a blocked device
// (bound or arriving), a plan with rebind off or a single component re-bind
// nothing.
func testRebind(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	seat := func(t *testing.T, name string, in store.PlanInput) *store.LicenseItem {
		t.Helper()
		in.Name, in.MaxDevices, in.DeviceResetLimit = ptr(name), ptr(1), ptr(2)
		_, gen := f.licenses(t, in, 1)
		return gen[0]
	}
	t.Run("OKMostComponents", func(t *testing.T) {
		l := seat(t, "Rebind most", store.PlanInput{})
		first, err := f.activateWith(l.Key, "rb-old", components("m1", "d1", "n1"))
		if err != nil {
			t.Fatal(err)
		}
		old := f.deviceByFingerprint(t, "rb-old")
		if !slices.Equal(old.Components, components("m1", "d1", "n1")) {
			t.Fatalf("stored components = %+v", old.Components)
		}
		f.clock.Advance(1)
		a, err := f.activateWith(l.Key, "rb-new", components("m1", "d1", "n2"))
		if err != nil {
			t.Fatalf("Activate(new fingerprint, 2 of 3 components) = %v; want a re-bind", err)
		}
		if a.LicenseStatus != store.LicenseActive || a.AccessToken == "" || a.RefreshToken == "" {
			t.Fatalf("re-bind answer = %+v; want the normal activation answer", a)
		}
		f.wantReason(t, "the new session", a.AccessToken, "")
		f.wantReason(t, "the session of the old fingerprint", first.AccessToken, store.ReasonSessionRevoked)
		if d := f.deviceByFingerprint(t, "rb-old"); d != nil {
			t.Fatalf("a device still answers to the old fingerprint: %+v", d)
		}
		d := f.deviceByFingerprint(t, "rb-new")
		if d == nil || d.ID != old.ID || !slices.Equal(d.Components, components("m1", "d1", "n2")) || !slices.Contains(d.LicenseIDs, l.ID) {
			t.Fatalf("device after the re-bind = %+v; want %s with the new components, bound", d, old.ID)
		}
		got, err := f.db.FindLicense(f.ctx, sc, l.ID)
		if err != nil || len(got.Devices) != 1 || got.DeviceResetsRemaining != 2 {
			t.Fatalf("license after the re-bind = %+v, %v; want 1 device and 2 resets left", got, err)
		}
		rb := f.rebounds(t, old.ID)
		if len(rb) != 1 || rb[0].Metadata["previous_fingerprint"] != "rb-old" || rb[0].Metadata["license_id"] != l.ID || rb[0].Target.Type != "device" {
			t.Fatalf("device.rebound audit = %+v; want one naming rb-old", rb)
		}
		f.wantBoundOnce(t, l.Key, "rb-new", components("m1", "d1", "n2"), old.ID)
	})
	refused := []struct {
		name     string
		plan     store.PlanInput
		bound    []store.DeviceComponent
		arriving []store.DeviceComponent
		block    bool
	}{
		{"ErrHalf", store.PlanInput{}, components("m", "d", "n", "o"), components("m", "d", "x", "y"), false},
		{"ErrBlocked", store.PlanInput{}, components("m", "d", "n"), components("m", "d", "n"), true},
		{"ErrRebindOff", store.PlanInput{Rebind: ptr(store.RebindOff)}, components("m", "d", "n"), components("m", "d", "n"), false},
		{"ErrOneComponent", store.PlanInput{}, components("m"), components("m", "d"), false},
		{"ErrOneArriving", store.PlanInput{}, components("m", "d"), components("m"), false},
		{"ErrNoneArriving", store.PlanInput{}, components("m", "d"), nil, false},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			l := seat(t, "Rebind "+tc.name, tc.plan)
			fp := "rb-" + tc.name
			if _, err := f.activateWith(l.Key, fp+"-old", tc.bound); err != nil {
				t.Fatal(err)
			}
			old := f.deviceByFingerprint(t, fp+"-old")
			if tc.block {
				if _, err := f.db.SetDeviceStatus(f.ctx, sc, old.ID, store.DeviceBlocked); err != nil {
					t.Fatal(err)
				}
			}
			_, err := f.activateWith(l.Key, fp+"-new", tc.arriving)
			wantCode(t, "Activate("+tc.name+")", err, store.ECodeDeviceLimit)
			if d := f.deviceByFingerprint(t, fp+"-old"); d == nil || d.ID != old.ID {
				t.Fatalf("the bound device lost its fingerprint: %+v", d)
			}
			if n := len(f.rebounds(t, old.ID)); n != 0 {
				t.Fatalf("%d re-binds recorded, want none", n)
			}
		})
	}
	// A fingerprint that names a device not bound to the license (a login
	// created it, another license of the same user binds it) re-binds too:
	// that device takes the binding of the device its components match,
	// which keeps its fingerprint and loses only this license's binding
	// and sessions.
	known := []struct {
		name      string
		elsewhere bool
	}{
		{"OKLoginThenActivate", false},
		{"OKKnownBoundElsewhere", true},
	}
	for i, tc := range known {
		t.Run(tc.name, func(t *testing.T) {
			l := seat(t, "Rebind "+tc.name, store.PlanInput{})
			email, oldFP, newFP := fmt.Sprintf("known%d@runtime.test", i), "rb-"+tc.name+"-old", "rb-"+tc.name+"-new"
			_, oldLogin := f.endUser(t, email, oldFP)
			first, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: l.Key, Fingerprint: oldFP,
				Components: components("m", "d", "n"), UserToken: oldLogin.AccessToken, Replay: f.replay()})
			if err != nil {
				t.Fatal(err)
			}
			old := f.deviceByFingerprint(t, oldFP)
			f.clock.Advance(1)
			newLogin, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: email, Password: Password,
				Fingerprint: newFP, Components: components("m", "d", "n2"), Replay: f.replay()})
			if err != nil {
				t.Fatal(err)
			}
			var elsewhere *store.Activation
			if tc.elsewhere {
				_, other := f.licenses(t, store.PlanInput{Name: ptr("Rebind elsewhere")}, 1)
				if elsewhere, err = f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: other[0].Key, Fingerprint: newFP,
					UserToken: newLogin.AccessToken, Replay: f.replay()}); err != nil {
					t.Fatal(err)
				}
			}
			held := f.deviceByFingerprint(t, newFP)
			a, err := f.runtime().Activate(f.ctx, f.client(""), store.ActivateInput{LicenseKey: l.Key, Fingerprint: newFP,
				Components: components("m", "d", "n2"), UserToken: newLogin.AccessToken, Replay: f.replay()})
			if err != nil {
				t.Fatalf("Activate(known fingerprint, 2 of 3 components) = %v; want a re-bind", err)
			}
			f.wantReason(t, "the new session", a.AccessToken, "")
			f.wantReason(t, "the old device's session of the license", first.AccessToken, store.ReasonSessionRevoked)
			f.wantReason(t, "the old device's login session", oldLogin.AccessToken, "")
			f.wantReason(t, "the new device's login session", newLogin.AccessToken, "")
			if elsewhere != nil {
				f.wantReason(t, "the new device's session of the other license", elsewhere.AccessToken, "")
			}
			d := f.deviceByFingerprint(t, newFP)
			if d == nil || d.ID != held.ID || !slices.Equal(d.Components, components("m", "d", "n2")) || !slices.Contains(d.LicenseIDs, l.ID) ||
				len(d.LicenseIDs) != len(held.LicenseIDs)+1 {
				t.Fatalf("device of the new fingerprint = %+v; want %s bound with the new components and its bindings before", d, held.ID)
			}
			if o := f.deviceByFingerprint(t, oldFP); o == nil || o.ID != old.ID || slices.Contains(o.LicenseIDs, l.ID) || o.Status != store.DeviceActive {
				t.Fatalf("device of the old fingerprint = %+v; want %s, active, no longer bound", o, old.ID)
			}
			got, err := f.db.FindLicense(f.ctx, sc, l.ID)
			if err != nil || got.DevicesCount != 1 || len(got.Devices) != 1 || got.Devices[0].ID != held.ID || got.DeviceResetsRemaining != 2 {
				t.Fatalf("license after the re-bind = %+v, %v; want the new device alone and 2 resets left", got, err)
			}
			rb := f.rebounds(t, held.ID)
			if len(rb) != 1 || rb[0].Metadata["previous_fingerprint"] != oldFP || rb[0].Metadata["previous_device_id"] != old.ID ||
				rb[0].Metadata["license_id"] != l.ID || fmt.Sprint(rb[0].Metadata["sessions_revoked"]) != "1" {
				t.Fatalf("device.rebound audit = %+v; want one naming %s and device %s, one session revoked", rb, oldFP, old.ID)
			}
			if n := len(f.rebounds(t, old.ID)); n != 0 {
				t.Fatalf("%d device.rebound entries name the old device, want none", n)
			}
			f.wantBoundOnce(t, l.Key, newFP, components("m", "d", "n2"), held.ID)
		})
	}
	// A known device that may not take the binding re-binds nothing: it is
	// refused as any other device would be.
	knownRefused := []struct {
		name string
		plan store.PlanInput
		prep func(t *testing.T, fp string)
		want string
	}{
		{"ErrKnownBlocked", store.PlanInput{}, func(t *testing.T, fp string) {
			f.activation(t, f.otherKey(t, store.PlanInput{}), fp)
			if _, err := f.db.SetDeviceStatus(f.ctx, sc, f.deviceByFingerprint(t, fp).ID, store.DeviceBlocked); err != nil {
				t.Fatal(err)
			}
		}, store.ECodeDeviceBlocked},
		{"ErrKnownOtherTrial", store.PlanInput{IsTrial: ptr(true)}, func(t *testing.T, fp string) {
			f.activation(t, f.otherKey(t, store.PlanInput{IsTrial: ptr(true)}), fp)
		}, store.ECodeDeviceLimit},
	}
	for _, tc := range knownRefused {
		t.Run(tc.name, func(t *testing.T) {
			l := seat(t, "Rebind "+tc.name, tc.plan)
			oldFP, newFP := "rb-"+tc.name+"-old", "rb-"+tc.name+"-new"
			if _, err := f.activateWith(l.Key, oldFP, components("m", "d", "n")); err != nil {
				t.Fatal(err)
			}
			old := f.deviceByFingerprint(t, oldFP)
			tc.prep(t, newFP)
			_, err := f.activateWith(l.Key, newFP, components("m", "d", "n"))
			wantCode(t, "Activate("+tc.name+")", err, tc.want)
			if o := f.deviceByFingerprint(t, oldFP); o == nil || !slices.Contains(o.LicenseIDs, l.ID) || len(f.rebounds(t, old.ID)) != 0 {
				t.Fatalf("the bound device lost its binding: %+v", o)
			}
			if d := f.deviceByFingerprint(t, newFP); d == nil || slices.Contains(d.LicenseIDs, l.ID) || len(f.rebounds(t, d.ID)) != 0 {
				t.Fatalf("the known device took the binding: %+v", d)
			}
		})
	}
	t.Run("OKLoginStoresComponents", func(t *testing.T) {
		if _, err := f.be.RegisterEndUser(f.ctx, sc, "rebind@runtime.test", Password); err != nil {
			t.Fatal(err)
		}
		login := func(cs []store.DeviceComponent) {
			t.Helper()
			if _, err := f.runtime().Login(f.ctx, f.client(""), store.RuntimeLoginInput{Email: "rebind@runtime.test", Password: Password,
				Fingerprint: "rb-login", Components: cs, Replay: f.replay()}); err != nil {
				t.Fatal(err)
			}
		}
		login(components("m", "d"))
		if d := f.deviceByFingerprint(t, "rb-login"); d == nil || !slices.Equal(d.Components, components("m", "d")) {
			t.Fatalf("device after login = %+v; want its components", d)
		}
		login(nil) // an older client says nothing: what is stored stays
		login(components("m", "d", "n"))
		if d := f.deviceByFingerprint(t, "rb-login"); d == nil || !slices.Equal(d.Components, components("m", "d", "n")) {
			t.Fatalf("device after logins = %+v; want the last components sent", d)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		l := seat(t, "Rebind checked", store.PlanInput{})
		many := make([]store.DeviceComponent, store.MaxDeviceComponents+1)
		for i := range many {
			many[i] = store.DeviceComponent{Name: fmt.Sprintf("c%d", i), Hash: "h"}
		}
		for name, cs := range map[string][]store.DeviceComponent{
			"too many":       many,
			"empty name":     {{Name: "", Hash: "h"}},
			"long hash":      {{Name: "n", Hash: string(make([]byte, store.MaxDeviceComponentHash+1))}},
			"duplicate name": {{Name: "n", Hash: "a"}, {Name: "n", Hash: "b"}},
		} {
			_, err := f.activateWith(l.Key, "rb-checked", cs)
			wantCode(t, "Activate("+name+")", err, store.ECodeValidation)
		}
		if d := f.deviceByFingerprint(t, "rb-checked"); d != nil {
			t.Fatalf("a refused activation created %+v", d)
		}
	})
}

// testRebindParallel: 40 activations at once on a license with one seat
// left, a quarter of them re-binding one bound device under one new
// fingerprint, a quarter another bound device under another, a quarter a
// third bound device's binding to a known device (one another license
// binds), a quarter new devices: the license ends with exactly max_devices
// devices, one new device got the seat, and each binding changed hands
// exactly once.
func testRebindParallel(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Rebind race"), MaxDevices: ptr(4)}, 1)
	key := gen[0].Key
	for i, fp := range []string{"race-a", "race-b", "race-c"} {
		if _, err := f.activateWith(key, fp, components(fmt.Sprint("m", i), fmt.Sprint("d", i), fmt.Sprint("n", i))); err != nil {
			t.Fatal(err)
		}
	}
	f.activation(t, f.otherKey(t, store.PlanInput{}), "race-c2")
	a, b, c := f.deviceByFingerprint(t, "race-a"), f.deviceByFingerprint(t, "race-b"), f.deviceByFingerprint(t, "race-c2")
	codes := parallel(40, func(i int) error {
		var err error
		switch i % 4 {
		case 0:
			_, err = f.activateWith(key, "race-a2", components("m0", "d0", "x"))
		case 1:
			_, err = f.activateWith(key, "race-b2", components("m1", "x", "n1"))
		case 2:
			_, err = f.activateWith(key, "race-c2", components("m2", "d2", "x"))
		default:
			_, err = f.activateWith(key, fmt.Sprintf("race-new-%d", i), nil)
		}
		return err
	})
	n := tally(t, "parallel activations", codes, "", store.ECodeDeviceLimit)
	if n[""] != 31 {
		t.Fatalf("%d activations succeeded, want the 30 re-binding ones and 1 new device (%q)", n[""], codes)
	}
	for i, c := range codes {
		if c != "" && i%4 != 3 {
			t.Fatalf("re-binding activation %d refused with %s", i, c)
		}
	}
	l, err := f.db.FindLicense(f.ctx, f.scope(store.EnvProduction), gen[0].ID)
	if err != nil || len(l.Devices) != 4 || l.DevicesCount != 4 {
		t.Fatalf("FindLicense = %+v, %v; want exactly 4 devices", l, err)
	}
	for fp, d := range map[string]*store.Device{"race-a2": a, "race-b2": b, "race-c2": c} {
		got := f.deviceByFingerprint(t, fp)
		if got == nil || got.ID != d.ID || !slices.Contains(got.LicenseIDs, l.ID) {
			t.Fatalf("%s names %+v, want device %s, bound", fp, got, d.ID)
		}
		if rb := f.rebounds(t, d.ID); len(rb) != 1 {
			t.Fatalf("device %s re-bound %d times, want once", d.ID, len(rb))
		}
	}
	if old := f.deviceByFingerprint(t, "race-c"); old == nil || slices.Contains(old.LicenseIDs, l.ID) {
		t.Fatalf("race-c = %+v; want it kept, its binding moved", old)
	}
}

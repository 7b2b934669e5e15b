package storetest

import (
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// testSelfServiceDevices: the application lists a license's devices for its
// customer (docs/design.md §17): newest first, the caller's device marked
// current, another license's devices absent, under anti-replay like an
// activation.
func testSelfServiceDevices(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Self service"), MaxDevices: ptr(3)}, 2)
	mine, theirs := gen[0], gen[1]
	older := f.activate(t, mine.Key, "self-older")
	f.clock.Advance(time.Minute)
	newer := f.activate(t, mine.Key, "self-newer")
	other := f.activate(t, theirs.Key, "self-other")
	list := func(key, fp string, rp store.Replay) ([]store.SelfServiceDevice, error) {
		return f.runtime().LicenseDevices(f.ctx, f.client(""), store.LicenseDevicesInput{LicenseKey: key, Fingerprint: fp, Replay: rp})
	}
	for _, c := range []struct {
		name, key, fp string
		want          []string // device ids, newest first
		current       string
	}{
		{name: "OKCurrent", key: mine.Key, fp: "self-older", want: []string{newer.ID, older.ID}, current: older.ID},
		{name: "OKTypedKey", key: "  " + strings.ToLower(mine.Key) + " ", fp: "self-newer", want: []string{newer.ID, older.ID}, current: newer.ID},
		{name: "OKNoFingerprint", key: mine.Key, want: []string{newer.ID, older.ID}},
		{name: "OKAnotherLicensesDevice", key: mine.Key, fp: "self-other", want: []string{newer.ID, older.ID}},
		{name: "OKOtherLicense", key: theirs.Key, fp: "self-other", want: []string{other.ID}, current: other.ID},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := list(c.key, c.fp, f.replay())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("LicenseDevices = %+v, want ids %v", got, c.want)
			}
			for i, d := range got {
				if d.ID != c.want[i] || d.Current != (d.ID == c.current) || d.BoundAt.IsZero() {
					t.Errorf("device %d = %+v, want id %s, current %v, a bound time", i, d, c.want[i], d.ID == c.current)
				}
			}
		})
	}
	t.Run("ErrNonceReused", func(t *testing.T) {
		rp := f.replay()
		if _, err := list(mine.Key, "", rp); err != nil {
			t.Fatal(err)
		}
		_, err := list(mine.Key, "", rp)
		wantCode(t, "LicenseDevices(same nonce)", err, store.ECodeNonceReused)
		refused := f.replay()
		_, err = list("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "", refused)
		wantCode(t, "LicenseDevices(unknown key)", err, store.ECodeNotFound)
		_, err = list(mine.Key, "", refused)
		wantCode(t, "LicenseDevices(nonce of a refused request)", err, store.ECodeNonceReused)
		audit, err := f.db.ListAudit(f.ctx, f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventRuntimeReplayRejected})
		if err != nil || audit.Total != 2 {
			t.Fatalf("runtime.replay_rejected entries = %+v, %v; want 2", audit, err)
		}
	})
	t.Run("ErrStaleTimestamp", func(t *testing.T) {
		rp := f.replay()
		rp.Timestamp = rp.Timestamp.Add(-replayWindow - time.Second)
		_, err := list(mine.Key, "", rp)
		wantCode(t, "LicenseDevices(stale)", err, store.ECodeStaleTimestamp)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, in := range map[string]store.LicenseDevicesInput{
			"no key":       {Fingerprint: "self-older", Replay: f.replay()},
			"no nonce":     {LicenseKey: mine.Key, Replay: store.Replay{Timestamp: f.clock.Now()}},
			"no timestamp": {LicenseKey: mine.Key, Replay: store.Replay{Nonce: "conformance-nonce-no-timestamp"}},
			"blank device": {LicenseKey: mine.Key, Fingerprint: "   ", Replay: f.replay()},
		} {
			_, err := f.runtime().LicenseDevices(f.ctx, f.client(""), in)
			wantCode(t, "LicenseDevices("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("ErrNotFoundOtherEnvironment", func(t *testing.T) {
		_, err := f.runtime().LicenseDevices(f.ctx, f.client(store.EnvDevelopment), store.LicenseDevicesInput{LicenseKey: mine.Key, Replay: f.replay()})
		wantCode(t, "LicenseDevices(production key in development)", err, store.ECodeNotFound)
	})
}

package storetest

import (
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/store"
)

// testLicenseMachineFile: the air-gapped machine file of docs/design.md §13.
// Support issues it for a fingerprint; the device is bound as an activation
// binds it (a seat taken, the license activated, the same refusals), the
// TTL is in days within the plan's max_offline_days, and the file verifies
// offline with the environment's key for that device only.
func testLicenseMachineFile(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Air-gapped"), MaxDevices: ptr(1), MaxOfflineDays: ptr(10)}, 3)
	issue := func(licID string, in store.LicenseMachineFileInput) (*store.IssuedMachineFile, error) {
		return f.db.IssueMachineFile(f.ctx, sc, licID, in)
	}
	app, err := f.be.FindApplication(f.ctx, f.ref())
	if err != nil {
		t.Fatal(err)
	}
	env := app.Env(store.EnvProduction)
	pinned := map[string]ed25519.PublicKey{env.KeyID: env.SigningKey.Public().(ed25519.PublicKey)}
	var devID string
	t.Run("OK", func(t *testing.T) {
		now := f.clock.Now()
		mf, err := issue(gen[0].ID, store.LicenseMachineFileInput{Fingerprint: " air-a ", Encrypt: true})
		if err != nil || mf.TTL != 10*86400 || !mf.IssuedAt.Equal(now) || !mf.ExpiresAt.Equal(now.Add(10*24*time.Hour)) || mf.DeviceID == "" {
			t.Fatalf("IssueMachineFile = %+v, %v", mf, err)
		}
		devID = mf.DeviceID
		p, err := machinefile.Verify(mf.Certificate, pinned, gen[0].Key, "air-a", now)
		if err != nil || p.Device.ID != devID || p.Device.Fingerprint != "air-a" || p.License.ID != gen[0].ID ||
			p.License.Status != store.LicenseActive || p.Meta.TTL != 10*86400 || p.User != nil {
			t.Fatalf("Verify = %+v, %v", p, err)
		}
		if _, err := machinefile.Verify(mf.Certificate, pinned, gen[0].Key, "air-b", now); err == nil {
			t.Fatal("a file for air-a verified on air-b")
		}
		d, err := f.db.FindLicense(f.ctx, sc, gen[0].ID)
		if err != nil || d.Status != store.LicenseActive || d.ActivatedAt == nil || d.DevicesCount != 1 || len(d.Devices) != 1 || d.Devices[0].ID != devID {
			t.Fatalf("license after the checkout = %+v, %v", d, err)
		}
		// Again for the bound device: no second seat, a shorter TTL, plain.
		mf, err = issue(gen[0].ID, store.LicenseMachineFileInput{Fingerprint: "air-a", TTLDays: 3})
		if err != nil || mf.TTL != 3*86400 || mf.DeviceID != devID {
			t.Fatalf("IssueMachineFile(ttl_days 3) = %+v, %v", mf, err)
		}
		_, err = machinefile.Verify(mf.Certificate, pinned, "", "air-b", now)
		if !errors.Is(err, machinefile.ErrOtherDevice) {
			t.Fatalf("Verify(plain file, another device) = %v, want %v", err, machinefile.ErrOtherDevice)
		}
		audit, err := f.db.ListAudit(f.ctx, sc, store.AuditFilter{Event: store.EventLicenseCheckedOut})
		if err != nil || audit.Total != 2 || audit.Data[0].Metadata["by"] != "management" || audit.Data[0].Metadata["device_id"] != devID {
			t.Fatalf("license.checked_out events = %+v, %v", audit, err)
		}
	})
	t.Run("ErrDeviceLimitReached", func(t *testing.T) {
		_, err := issue(gen[0].ID, store.LicenseMachineFileInput{Fingerprint: "air-b"})
		wantCode(t, "IssueMachineFile(a second device on one seat)", err, store.ECodeDeviceLimit)
	})
	t.Run("OKUser", func(t *testing.T) {
		u, _ := f.endUser(t, "air@conformance.test", "air-login")
		f.endUser(t, "other-air@conformance.test", "air-login-2")
		mf, err := issue(gen[1].ID, store.LicenseMachineFileInput{Fingerprint: "air-u", UserEmail: "AIR@conformance.test", Encrypt: true})
		if err != nil {
			t.Fatalf("IssueMachineFile(user) = %v", err)
		}
		p, err := machinefile.Verify(mf.Certificate, pinned, gen[1].Key, "air-u", f.clock.Now())
		if err != nil || p.User == nil || p.User.ID != u.ID || p.User.Email != u.Email {
			t.Fatalf("Verify = %+v, %v", p, err)
		}
		_, err = issue(gen[1].ID, store.LicenseMachineFileInput{Fingerprint: "air-u", UserEmail: "other-air@conformance.test"})
		wantCode(t, "IssueMachineFile(another user's license)", err, store.ECodeLicenseOwned)
		_, err = issue(gen[1].ID, store.LicenseMachineFileInput{Fingerprint: "air-u", UserEmail: "nobody@conformance.test"})
		wantCode(t, "IssueMachineFile(unknown user)", err, store.ECodeNotFound)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, in := range map[string]store.LicenseMachineFileInput{
			"ttl_days above max_offline_days": {Fingerprint: "air-a", TTLDays: 11},
			"ttl_days negative":               {Fingerprint: "air-a", TTLDays: -1},
			"no fingerprint":                  {Fingerprint: " "},
		} {
			_, err := issue(gen[0].ID, in)
			wantCode(t, "IssueMachineFile("+name+")", err, store.ECodeValidation)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := issue(store.NewID(), store.LicenseMachineFileInput{Fingerprint: "air-a"})
		wantCode(t, "IssueMachineFile(no such license)", err, store.ECodeNotFound)
	})
	t.Run("ErrDeviceBlocked", func(t *testing.T) {
		if _, err := f.db.SetDeviceStatus(f.ctx, sc, devID, store.DeviceBlocked); err != nil {
			t.Fatal(err)
		}
		_, err := issue(gen[2].ID, store.LicenseMachineFileInput{Fingerprint: "air-a"})
		wantCode(t, "IssueMachineFile(blocked device)", err, store.ECodeDeviceBlocked)
	})
	t.Run("ErrLicenseSuspended", func(t *testing.T) {
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, gen[2].ID, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
		_, err := issue(gen[2].ID, store.LicenseMachineFileInput{Fingerprint: "air-c"})
		wantCode(t, "IssueMachineFile(suspended license)", err, store.ECodeLicenseSuspend)
	})
	t.Run("ErrTrialAlreadyUsed", func(t *testing.T) {
		_, trials := f.licenses(t, store.PlanInput{Name: ptr("Air trial"), IsTrial: ptr(true), DurationDays: ptr(ptr(14))}, 2)
		mf, err := issue(trials[0].ID, store.LicenseMachineFileInput{Fingerprint: "air-trial"})
		if err != nil {
			t.Fatalf("IssueMachineFile(first trial) = %v", err)
		}
		// The plan's duration starts with the binding, as at activation.
		if want := f.clock.Now().Add(14 * 24 * time.Hour); !mf.ExpiresAt.Equal(want) {
			t.Fatalf("expires_at = %v, want %v (capped by the trial's end)", mf.ExpiresAt, want)
		}
		_, err = issue(trials[1].ID, store.LicenseMachineFileInput{Fingerprint: "air-trial"})
		wantCode(t, "IssueMachineFile(a second trial on one device)", err, store.ECodeTrialUsed)
	})
	t.Run("ErrOfflineNotAllowed", func(t *testing.T) {
		_, none := f.licenses(t, store.PlanInput{Name: ptr("Never offline"), MaxOfflineDays: ptr(0)}, 1)
		_, err := issue(none[0].ID, store.LicenseMachineFileInput{Fingerprint: "air-d"})
		wantCode(t, "IssueMachineFile(max_offline_days 0)", err, store.ECodeOfflineNotAllowed)
		d, err := f.db.FindLicense(f.ctx, sc, none[0].ID)
		if err != nil || d.DevicesCount != 0 || d.Status != store.LicenseInactive {
			t.Fatalf("a refused checkout bound a device: %+v, %v", d, err)
		}
	})
}

package bolt

import (
	"fmt"
	"testing"
	"time"

	"licensectl/store"
)

// TestExplainSessionMatchesValidate (docs/tui.md §13.5): for every combination
// of application, license, user and device state, the reason
// store.ExplainSession gives for the stored records is the reason
// Runtime.Validate returns for a real session in that state, so the TUI's
// explanation cannot disagree with the server.
func TestExplainSessionMatchesValidate(t *testing.T) {
	apps := []string{store.AppActive, store.AppDisabled}
	licenses := []string{store.LicenseActive, store.LicenseSuspended, store.LicenseRevoked, store.LicenseBanned, store.LicenseExpired}
	users := []string{"", store.UserActive, store.UserBanned, store.UserDisabled}
	devices := []string{store.DeviceActive, store.DeviceBlocked}
	for _, app := range apps {
		for _, lic := range licenses {
			for _, user := range users {
				for _, dev := range devices {
					name := fmt.Sprintf("app=%s,license=%s,user=%s,device=%s", app, lic, user, dev)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						explainAgainstValidate(t, app, lic, user, dev)
					})
				}
			}
		}
	}
}

func explainAgainstValidate(t *testing.T, appStatus, licStatus, userStatus, devStatus string) {
	e := newEnv(t)
	rt := e.db.Runtime(RuntimeOptions{
		// The access token names its session, as a signed one would.
		Signer: testSigner, SessionOf: testSessionOf,
		AccessTTL: 48 * time.Hour, RefreshIdleTTL: 48 * time.Hour, RefreshAbsoluteTTL: 96 * time.Hour, ReplayWindow: time.Hour,
	})
	client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
	nonce := 0
	replay := func() store.Replay {
		nonce++
		return store.Replay{Timestamp: e.clock.now(), Nonce: fmt.Sprintf("explain-nonce-%08d", nonce)}
	}
	expires := e.clock.now().Add(time.Hour)
	lic := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: e.mustPlan(t).ID, Quantity: 1, ExpiresAt: &expires})[0]
	const fingerprint = "fp-explain-1"
	in := store.ActivateInput{LicenseKey: lic.Key, Fingerprint: fingerprint, Replay: replay()}
	if userStatus != "" {
		if _, err := e.db.RegisterEndUser(e.ctx, e.scope, "buyer@example.com", "long enough password"); err != nil {
			t.Fatal(err)
		}
		s, err := rt.Login(e.ctx, client, store.RuntimeLoginInput{Email: "buyer@example.com", Password: "long enough password", Fingerprint: fingerprint, Replay: replay()})
		if err != nil {
			t.Fatal(err)
		}
		in.UserToken = s.AccessToken
	}
	act, err := rt.Activate(e.ctx, client, in)
	if err != nil {
		t.Fatal(err)
	}

	// Bring each record to the state of the case, the way an administrator
	// or time would.
	if licStatus == store.LicenseExpired {
		e.clock.advance(2 * time.Hour)
	} else if licStatus != store.LicenseActive {
		if _, err := e.db.SetLicenseStatus(e.ctx, e.scope, lic.ID, licStatus); err != nil {
			t.Fatal(err)
		}
	}
	var user *store.EndUser
	if userStatus != "" {
		users, err := e.db.ListEndUsers(e.ctx, e.scope, store.StatusFilter{Email: "buyer@example.com"})
		if err != nil || users.Total != 1 {
			t.Fatalf("ListEndUsers = %+v, %v", users, err)
		}
		if user, err = e.db.SetEndUserStatus(e.ctx, e.scope, users.Data[0].ID, userStatus); err != nil {
			t.Fatal(err)
		}
	}
	devs, err := e.db.ListDevices(e.ctx, e.scope, store.StatusFilter{Fingerprint: fingerprint})
	if err != nil || devs.Total != 1 {
		t.Fatalf("ListDevices = %+v, %v", devs, err)
	}
	dev, err := e.db.SetDeviceStatus(e.ctx, e.scope, devs.Data[0].ID, devStatus)
	if err != nil {
		t.Fatal(err)
	}
	if appStatus == store.AppDisabled {
		if err := e.db.DeleteApplication(e.ctx, e.scope.App(), false); err != nil {
			t.Fatal(err)
		}
	}

	app, err := e.db.FindApplication(e.ctx, e.scope.App())
	if err != nil {
		t.Fatal(err)
	}
	detail, err := e.db.FindLicense(e.ctx, e.scope, lic.ID)
	if err != nil {
		t.Fatal(err)
	}
	explained, _ := store.ExplainSession(app, &detail.License, user, dev, e.clock.now())
	v, err := rt.Validate(e.ctx, client, act.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != explained || v.Valid != (explained == "") {
		t.Fatalf("Validate says valid=%v reason %q; ExplainSession says %q", v.Valid, v.Reason, explained)
	}
}

package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/bolt"
)

// TestLicenseDetailSessionsAndHistory: the detail counts the license's live
// sessions, names them in the suspension's dialog, and shows the license's
// own history (audit by target), not its neighbours'.
func TestLicenseDetailSessionsAndHistory(t *testing.T) {
	s := seed(t, 2)
	ctx := context.Background()
	p, err := s.db.ListLicenses(ctx, s.scope(), store.LicenseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	mine, other := p.Data[0], p.Data[1]
	rt := s.db.Runtime(bolt.RuntimeOptions{
		Signer:    func(*store.Environment, store.AccessClaims) (string, error) { return "token", nil },
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Minute,
	})
	_, err = rt.Activate(ctx, store.RuntimeClient{AppID: s.app.ID, Env: store.EnvProduction}, store.ActivateInput{
		LicenseKey: mine.Key, Fingerprint: "fp-laptop-1", Replay: store.Replay{Timestamp: time.Now(), Nonce: "tui-test-nonce-0001"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), other.ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	dev := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	dev.press("4", "enter")
	dev.contains("Device fp-laptop-1")
	dev.contains("live sessions 1")
	dev.press("esc", "b")
	dev.contains("Its live sessions (1) end (device_blocked)")
	dev.press("esc")

	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press(":", "license "+mine.Key, "enter")
	h.contains("live sessions 1")
	h.contains("History  license.activated")
	if v := h.view(); strings.Contains(v, "license.suspended") {
		t.Fatalf("the history holds another license's suspension:\n%s", v)
	}
	h.press("s")
	h.contains("Its live sessions (1) become invalid (license_suspended)")
	h.press("y")
	h.contains("live sessions 0")
	h.contains("History  license.suspended")
}

// TestAuditEntryOpensItsLicense: an audit entry about a license opens it.
func TestAuditEntryOpensItsLicense(t *testing.T) {
	s := seed(t, 1)
	p, err := s.db.ListLicenses(context.Background(), s.scope(), store.LicenseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("6", "enter")
	h.contains("Audit entry license.created")
	h.press("o")
	h.contains("License " + p.Data[0].Key)
}

// TestAuditTimeFilter (tui.md §9.2): from: and to: bound the audit log.
func TestAuditTimeFilter(t *testing.T) {
	s := seed(t, 2)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("6")
	h.contains("4 matching") // the application, the plan and two licenses
	h.press("/", "to:2000-01-01T00:00:00Z", "enter")
	h.contains("[to:2000-01-01T00:00:00Z]")
	h.contains("Nothing matches")
	h.press("esc", "/", "from:2000-01-01T00:00:00Z to:2999-01-01T00:00:00Z", "enter")
	h.contains("4 matching")
}

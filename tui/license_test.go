package tui

import (
	"context"
	"fmt"
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
	lics := s.licenseItems(t)
	mine, other := lics[0], lics[1]
	rt := s.db.Runtime(bolt.RuntimeOptions{
		Signer:    func(*store.Environment, store.AccessClaims) (string, error) { return "token", nil },
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Minute,
	})
	_, err := rt.Activate(ctx, store.RuntimeClient{AppID: s.app.ID, Env: store.EnvProduction}, store.ActivateInput{
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
	lics := s.licenseItems(t)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("6", "enter")
	h.contains("Audit entry license.created")
	h.press("o")
	h.contains("License " + lics[0].Key)
}

// TestAuditTimeFilter (docs/tui.md §9.2): from: and to: bound the audit log.
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

// TestLicenseDetailPagesDevices: a license with more bound devices than its
// detail carries shows their count and the newest page; moving down past
// the last one read reads the next page, which a refresh keeps.
func TestLicenseDetailPagesDevices(t *testing.T) {
	s := seed(t, 1)
	ctx := context.Background()
	lics := s.licenseItems(t)
	lic := lics[0]
	const n = store.LicenseDetailDevices + 5
	for i := range n {
		d, err := bolt.FixturesOf(s.db).EnsureDevice(ctx, s.scope(), fmt.Sprintf("site-%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bolt.FixturesOf(s.db).SeedBinding(ctx, s.scope(), lic.ID, d.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 40)
	h.press(":", "license "+lic.Key, "enter")
	h.contains(fmt.Sprintf("Devices (%d/2 bound)", n))
	h.contains(fmt.Sprintf("20 of %d devices read", n))
	h.contains("17 more of the newest devices: sessions on them → 17 valid") // 20 minus the 3 named
	if v := h.view(); strings.Contains(v, "site-04") {
		t.Fatalf("the first view holds a device past the first page:\n%s", v)
	}
	for range store.LicenseDetailDevices {
		h.press("down")
	}
	h.contains("site-04")
	if v := h.view(); strings.Contains(v, "devices read") {
		t.Fatalf("every device is read, yet the detail says otherwise:\n%s", v)
	}
	for range 4 {
		h.press("down")
	}
	h.contains("site-00")
	h.press("ctrl+r")
	h.contains("site-00")
}

// bind binds a device with this fingerprint to the license, owned by the
// user userID when not "", and returns the device.
func (s *seeded) bind(t testing.TB, licenseID, fp, userID string) *store.Device {
	t.Helper()
	ctx := context.Background()
	d, err := bolt.FixturesOf(s.db).EnsureDevice(ctx, s.scope(), fp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.FixturesOf(s.db).SeedBinding(ctx, s.scope(), licenseID, d.ID, userID); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLicenseDeviceOpens (docs/tui.md §5.5): enter on a device row of the
// license detail opens that device.
func TestLicenseDeviceOpens(t *testing.T) {
	s := seed(t, 1)
	lic := s.licenseItems(t)[0]
	s.bind(t, lic.ID, "fp-laptop-1", "")
	s.bind(t, lic.ID, "fp-desktop-2", "")
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press(":", "license "+lic.Key, "enter")
	h.contains("enter open device")
	h.press("down", "enter")
	h.contains("Device fp-laptop-1")
	h.contains("Licenses on fp-laptop-1")
	h.contains(lic.Key[:5] + "…" + lic.Key[24:] + " ▸ fp-laptop-1")
	h.press("esc")
	h.contains("License " + lic.Key)
}

// TestUserAndDeviceDetails (docs/tui.md §5, §5.6): the user detail shows the
// user's licenses and devices, the device detail its user by e-mail; a
// device with no name or platform leaves no empty field between the dots.
func TestUserAndDeviceDetails(t *testing.T) {
	s := seed(t, 3)
	lics := s.licenseItems(t)
	u, err := s.db.RegisterEndUser(context.Background(), s.scope(), "ada@example.com", "long enough password")
	if err != nil {
		t.Fatal(err)
	}
	s.bind(t, lics[0].ID, "fp-laptop-1", u.ID)
	s.bind(t, lics[1].ID, "fp-desktop-2", u.ID)
	s.bind(t, lics[2].ID, "fp-other-3", "")
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 140, 30)
	h.press(":", "user ada@example.com", "enter")
	h.contains("User ada@example.com · active · roles — ·")
	h.contains("Devices (2)  fp-")
	h.contains("fp-desktop-2 active, seen —")
	h.contains("fp-laptop-1 active, seen —")
	if v := h.view(); strings.Contains(v, "fp-other-3") {
		t.Fatalf("the user detail lists a device of another license:\n%s", v)
	}
	h.contains("Licenses of ada@example.com")
	h.press(":", "device fp-laptop-1", "enter")
	h.contains("Device fp-laptop-1 · active · user ada@example.com · last seen")
	h.press(":", "device fp-other-3", "enter")
	h.contains("Device fp-other-3 · active · user — · last seen")
	if v := h.view(); strings.Contains(v, "·  ·") {
		t.Fatalf("an empty field left a gap:\n%s", v)
	}
}

// TestStaleChangeReport: "✓ Reinstated" goes from the status line once a
// read of the license detail shows the license suspended again from
// elsewhere (another operator, the API), and the line says what holds now;
// a read that finds it as the change left it keeps the report.
func TestStaleChangeReport(t *testing.T) {
	s := seed(t, 1)
	ctx := context.Background()
	lic := s.licenseItems(t)[0]
	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), lic.ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	h, _ := s.licenses(t, s.db, Options{})
	h.press("enter")
	if _, ok := h.m.top().(*license); !ok {
		t.Fatalf("enter opened %T, want the license detail", h.m.top())
	}
	h.press("u")
	h.later(time.Second)
	h.press("y")
	h.contains("Reinstated")
	h.press("ctrl+r") // a read that finds what the change left
	h.contains("Reinstated")

	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), lic.ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	h.press("ctrl+r")
	if v := h.view(); strings.Contains(v, "Reinstated") {
		t.Fatalf("the status line still says Reinstated over a suspended license:\n%s", v)
	}
	h.contains("is suspended now (changed elsewhere)")
}

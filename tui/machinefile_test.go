package tui

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/store"
)

// TestLicenseMachineFile: m on the license detail issues an air-gapped
// machine file for a fingerprint into a new file (docs/design.md §13): the device
// takes a seat, the file verifies for it only, an existing file is never
// written over, and the server's complaint about a field comes back under
// that field.
func TestLicenseMachineFile(t *testing.T) {
	s := seed(t, 1)
	lics := s.licenseItems(t)
	lic := lics[0]
	env := s.app.Env(store.EnvProduction)
	pinned := map[string]ed25519.PublicKey{env.KeyID: env.SigningKey.Public().(ed25519.PublicKey)}
	dir := t.TempDir()
	t.Chdir(dir)

	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 40)
	h.press(":", "license "+lic.Key, "enter")
	h.contains("m machine file")
	h.press("m")
	h.contains("Machine file of " + lic.Key + " in PRODUCTION")
	h.contains("Valid for days (1-30)")
	h.press("ctrl+s")
	h.contains("required") // no fingerprint
	h.press("lab-pc", "tab", "31", "ctrl+s")
	h.contains("a number of days from 1 to 30")
	h.press("backspace", "backspace", "7", "ctrl+s")
	h.contains("✓ Wrote the machine file of lab-pc to ./lab-pc.lic")
	h.contains("Devices (1/2 bound)")

	path := filepath.Join(dir, "lab-pc.lic")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("machine file: %v, %v; want mode 0600", st, err)
	}
	cert, _ := os.ReadFile(path)
	pl, err := machinefile.Verify(string(cert), pinned, lic.Key, "lab-pc", time.Now())
	if err != nil || pl.License.ID != lic.ID || pl.Meta.TTL != 7*86400 || pl.License.Status != store.LicenseActive {
		t.Fatalf("Verify = %+v, %v", pl, err)
	}
	if _, err := machinefile.Verify(string(cert), pinned, lic.Key, "other-pc", time.Now()); !errors.Is(err, machinefile.ErrDecrypt) {
		t.Fatalf("Verify(another fingerprint) = %v, want %v", err, machinefile.ErrDecrypt)
	}

	// The same path again: refused under the path field, nothing issued.
	h.press("m", "lab-pc-2", "ctrl+s")
	h.contains("✓ Wrote the machine file of lab-pc-2 to ./lab-pc-2.lic")
	h.contains("Devices (2/2 bound)")
	h.press("m", "lab-pc-3", "tab", "tab", "tab", "tab", "lab-pc.lic", "ctrl+s")
	h.contains("lab-pc.lic exists; choose another name")
	if got, _ := os.ReadFile(path); string(got) != string(cert) {
		t.Fatal("the existing machine file was written over")
	}
	// A third device on two seats: the server refuses and no file is left.
	h.press("esc", "m", "lab-pc-3", "ctrl+s")
	h.contains("device_limit_reached")
	if _, err := os.Stat(filepath.Join(dir, "lab-pc-3.lic")); !os.IsNotExist(err) {
		t.Fatalf("a refused machine file left %v", err)
	}
}

package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/server/api"
	"licensectl/server/servertest"
	"licensectl/store"
)

// machineFileScenario: `license machine-file` issues an air-gapped machine
// file (docs/design.md §13) that verifies offline with the environment's key for
// its fingerprint only; -o writes it 0600 and never over another file, and a
// refused file takes no seat.
func machineFileScenario(t *testing.T, c *cli, orgID string, seed seeder) {
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Studio", "--slug", "studio")
	c.ok("plan", "create", "--app", "studio", "Lab", "--max-devices", "1", "--max-offline-days", "365")
	var gen api.LicensesGenerated
	c.json(&gen, "license", "generate", "--app", "studio", "--plan", "Lab", "-o", "json")
	lic := gen.Licenses[0]
	var pinned map[string]ed25519.PublicKey
	seed(func(db servertest.Store) {
		a, err := db.FindApplication(context.Background(), store.AppRef{OrgID: orgID, AppID: app.ID})
		if err != nil {
			t.Fatal(err)
		}
		env := a.Env(store.EnvProduction)
		pinned = map[string]ed25519.PublicKey{env.KeyID: env.SigningKey.Public().(ed25519.PublicKey)}
	})

	// An existing file is never written over, and nothing is issued.
	file := filepath.Join(c.dir, "lab-pc.lic")
	if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.fails(1, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "-o", file), "lab-pc.lic exists")
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	var d api.LicenseDetail
	c.json(&d, "license", "show", "--app", "studio", lic.ID)
	if d.DevicesCount != 0 || d.Status != store.LicenseInactive {
		t.Fatalf("a refused -o took a seat: %+v", d)
	}
	os.Remove(file)

	out := c.ok("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "--ttl", "30d", "-o", file)
	if !strings.HasPrefix(out, "wrote "+file+": machine file of license "+lic.ID+" for device ") {
		t.Fatalf("stdout = %q", out)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("machine file mode = %v, %v; want 0600", st.Mode(), err)
	}
	cert, _ := os.ReadFile(file)
	p, err := machinefile.Verify(string(cert), pinned, lic.Key, "lab-pc", time.Now())
	if err != nil || p.License.ID != lic.ID || p.Meta.TTL != 30*86400 {
		t.Fatalf("Verify(-o file) = %+v, %v", p, err)
	}
	if _, err := machinefile.Verify(string(cert), pinned, lic.Key, "other-pc", time.Now()); !errors.Is(err, machinefile.ErrDecrypt) {
		t.Fatalf("Verify(another fingerprint) = %v, want %v", err, machinefile.ErrDecrypt)
	}
	c.json(&d, "license", "show", "--app", "studio", lic.ID)
	if d.DevicesCount != 1 || d.Status != store.LicenseActive {
		t.Fatalf("license after the machine file = %+v", d)
	}

	// To stdout, the certificate and nothing else; the seat is the same.
	out = c.ok("license", "machine-file", "--app", "studio", lic.ID, "--fingerprint", "lab-pc", "--encrypt=false")
	if p, err := machinefile.Verify(out, pinned, "", "lab-pc", time.Now()); err != nil || p.Meta.TTL != 365*86400 || !strings.HasPrefix(out, machinefile.Begin) {
		t.Fatalf("Verify(stdout) = %+v, %v\n%s", p, err, out)
	}
	c.fails(1, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "other-pc"), "Error: device_limit_reached: ")
	c.fails(1, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "--ttl", "366d"), "Error: validation_failed: ")
	c.fails(1, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "--user", "nobody@acme.test"), "Error: not_found: ")
	c.fails(2, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "--ttl", "12h"), "--ttl must be whole days")
	c.fails(2, args("license", "machine-file", "--app", "studio", lic.Key, "--fingerprint", "lab-pc", "-o", "json"), "-o names the file")
	c.fails(2, args("license", "machine-file", "--app", "studio", lic.Key), "fingerprint")
}

func TestLocalMachineFile(t *testing.T)  { runLocal(t, machineFileScenario) }
func TestRemoteMachineFile(t *testing.T) { runRemote(t, machineFileScenario) }

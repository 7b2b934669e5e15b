package licensing

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// TestFingerprint: stable for one machine and application, unrelated for
// two applications or two machines, and never the machine id itself.
func TestFingerprint(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("reads the machine id from a file on this system only")
	}
	dir := t.TempDir()
	id := filepath.Join(dir, "machine-id")
	if err := os.WriteFile(id, []byte("4f1c0e9a5b2d4c8e9f0a1b2c3d4e5f60\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := machineIDFiles
	machineIDFiles = []string{filepath.Join(dir, "absent"), id}
	defer func() { machineIDFiles = old }()

	a1, err := Fingerprint("photo-editor")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := Fingerprint("photo-editor")
	b, _ := Fingerprint("tax-helper")
	if a1 != a2 || a1 == b || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a1) {
		t.Fatalf("fingerprints %s %s %s", a1, a2, b)
	}
	if a1 != fingerprintOf("photo-editor", "4f1c0e9a5b2d4c8e9f0a1b2c3d4e5f60") || a1 == fingerprintOf("photo-editor", "another machine") {
		t.Fatal("the fingerprint does not follow the machine id")
	}
	machineIDFiles = []string{filepath.Join(dir, "absent")}
	if _, err := Fingerprint("photo-editor"); err == nil {
		t.Fatal("a machine without a machine id got a fingerprint")
	}
}

// TestComponents: hashed with the application (64 hex digits, unrelated
// for two applications, never the raw value), names unique, stable for one
// machine, and what this machine has (the machine id at least, where
// Fingerprint works).
func TestComponents(t *testing.T) {
	a1, a2, b := Components("photo-editor"), Components("photo-editor"), Components("tax-helper")
	if len(a1) != len(a2) || len(a1) != len(b) {
		t.Fatalf("components %v %v %v", a1, a2, b)
	}
	seen := map[string]bool{}
	for i, c := range a1 {
		if seen[c.Name] || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(c.Hash) || c != a2[i] || c.Hash == b[i].Hash {
			t.Fatalf("component %d: %+v (again %+v, other application %+v)", i, c, a2[i], b[i])
		}
		seen[c.Name] = true
	}
	if _, err := Fingerprint("photo-editor"); err == nil && !seen["machine_id"] {
		t.Fatalf("a machine with a machine id sends no machine_id component: %v", a1)
	}
	if id := machineIDValue(); id != "" && componentHash("photo-editor", "machine_id", id) == componentHash("photo-editor", "mac", id) {
		t.Fatal("the component name is not part of the hash")
	}
}

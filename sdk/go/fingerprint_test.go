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

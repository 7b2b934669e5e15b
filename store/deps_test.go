package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStoreImportsNothingOfTheProject: the domain is the innermost package;
// what knows a format or a provider (machine files, Pix) is injected.
func TestStoreImportsNothingOfTheProject(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "licensectl/") && dep != "licensectl/store" {
			t.Errorf("package store depends on %s", dep)
		}
	}
}

package server_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoStorage: the server speaks HTTP over store.Backend; the
// binary's wiring (cmd/licensectl) chooses the storage, so the PostgreSQL
// store slots in without the server changing.
func TestServerLinksNoStorage(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "licensectl/store/bolt" || dep == "go.etcd.io/bbolt" || dep == "licensectl/store/postgres" || strings.HasPrefix(dep, "github.com/jackc/") {
			t.Errorf("package server depends on %s", dep)
		}
	}
}

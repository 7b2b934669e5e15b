package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClientLinksNoServer: the remote client (and so the TUI in remote
// mode) depends on store and server/api only, never on the server, its
// router, metrics, password hashing or the bbolt file.
func TestClientLinksNoServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"licensectl/server", "licensectl/store/bolt", "go.etcd.io/bbolt", "github.com/gorilla/mux",
			"github.com/prometheus/client_golang/prometheus", "github.com/alexedwards/argon2id", "github.com/altcha-org/altcha-lib-go"} {
			if dep == bad {
				t.Errorf("server/client depends on %s", dep)
			}
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 9 #10: a truncated data file is one line of advice, not SIGBUS.
func TestDamagedDataFile(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	path := filepath.Join(c.dir, "data", "licensectl.db")
	if err := os.Truncate(path, 8192); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"org", "list"}, {"serve", "--listen", "127.0.0.1:0"}} {
		r := c.run(args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "licensectl restore") {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
}

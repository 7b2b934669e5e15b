package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store/postgres/pgtest"
)

// binary is the licensectl binary built once for every test of the package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "licensectl-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "licensectl")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build licensectl:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	servertest.WaitingTests()
	code := m.Run()
	pgtest.Stop() // the throw-away cluster of LICENSECTL_TEST_STORE=postgres, if any
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// cli runs the built binary with fixed global arguments and environment, in
// a working directory of its own (so no stray licensectl.yaml is read).
type cli struct {
	t    testing.TB
	dir  string
	args []string
	env  []string
}

// newLocal is a cli for local mode on a fresh data directory's bbolt
// file.
func newLocal(t testing.TB) *cli {
	dir := t.TempDir()
	return &cli{t: t, dir: dir, args: []string{"--data-dir", filepath.Join(dir, "data")}}
}

// newLocalStore is newLocal on the store the tests run on: on
// LICENSECTL_TEST_STORE=postgres, the data directory's database
// (servertest.PostgresURL), which localSeeder opens too.
func newLocalStore(t testing.TB) *cli {
	c := newLocal(t)
	if os.Getenv(servertest.StoreEnv) == "postgres" {
		u, err := servertest.PostgresURL(filepath.Join(c.dir, "data"))
		if err != nil {
			t.Fatal(err)
		}
		c.env = []string{"LICENSECTL_STORAGE_DRIVER=postgres", "LICENSECTL_STORAGE_POSTGRES_URL=" + u}
	}
	return c
}

// newRemote is a cli for remote mode against url with key.
func newRemote(t testing.TB, url, key string, extra ...string) *cli {
	return &cli{t: t, dir: t.TempDir(), args: append([]string{"--server", url, "--api-key", key}, extra...)}
}

// with returns a copy of c with more global arguments.
func (c *cli) with(args ...string) *cli {
	d := *c
	d.args = append(append([]string(nil), c.args...), args...)
	return &d
}

func (c *cli) run(args ...string) result {
	c.t.Helper()
	cmd := exec.Command(binary, append(append([]string(nil), c.args...), args...)...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LICENSECTL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			c.t.Fatalf("run %v: %v", args, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// ok runs args, fails the test unless the exit code is 0, and returns stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("licensectl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// json runs args with -o json and decodes stdout into v.
func (c *cli) json(v any, args ...string) {
	c.t.Helper()
	out := c.ok(append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("licensectl %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fails runs args and fails the test unless the exit code is code and
// stderr contains every one of want; stdout must be empty.
func (c *cli) fails(code int, args []string, want ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code {
		c.t.Fatalf("licensectl %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			c.t.Fatalf("licensectl %s: stderr does not contain %q:\n%s", strings.Join(args, " "), w, r.stderr)
		}
	}
	if r.stdout != "" {
		c.t.Fatalf("licensectl %s: failed but wrote to stdout: %q", strings.Join(args, " "), r.stdout)
	}
	return r
}

// args is a readability helper for fails.
func args(a ...string) []string { return a }

// passwordFile writes servertest.Password to a file for --owner-password-file.
func passwordFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(path, []byte(servertest.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

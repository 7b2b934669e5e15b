package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// served is a `licensectl serve` process started by startServe.
type served struct {
	cmd    *exec.Cmd
	url    string
	stderr []string // lines up to the one startServe waited for
	lines  <-chan string
}

// startServe runs the binary's serve in dir with args and env, and waits
// until stderr has a line containing until (the server logs as text).
// It fails the test if the process exits first.
func startServe(t *testing.T, dir string, env []string, until string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), append([]string{"LICENSECTL_LOG_FORMAT=text"}, env...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, pipe)
	}()
	s := &served{cmd: cmd, lines: lines}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited before printing %q:\n%s", until, strings.Join(s.stderr, "\n"))
			}
			s.stderr = append(s.stderr, l)
			if _, u, ok := strings.Cut(l, " url="); ok && s.url == "" {
				s.url, _, _ = strings.Cut(u, " ")
			}
			if strings.Contains(l, until) {
				return s
			}
		case <-deadline:
			t.Fatalf("no %q from serve:\n%s", until, strings.Join(s.stderr, "\n"))
		}
	}
}

// stop ends the server with SIGTERM and waits until it has exited.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range s.lines { // the pipe closes when the process is gone
	}
	_ = s.cmd.Wait()
}

// cleanEnv is the test's environment without LICENSECTL_* variables.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LICENSECTL_") {
			out = append(out, kv)
		}
	}
	return out
}

// refuse runs serve with args in dir, wants exit 1 with one error whose
// text contains every one of want, and returns stderr. A serve that does
// not refuse is stopped after 20 s.
func refuse(t *testing.T, dir string, env []string, args []string, want ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	out := stderr.String()
	if code != 1 || strings.Count(out, "Error:") != 1 {
		t.Fatalf("serve %v: exit %d (%v), want 1 with one error:\n%s", args, code, err, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("serve %v: error does not say %q:\n%s", args, w, out)
		}
	}
	return out
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s was created (%v)", path, err)
	}
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Fatalf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
	}
}

// Issue 25 #2, docs/design.md §2: a missing data dir other than the default is a
// typo until --init says otherwise; the default ./data and --init create it
// 0700 (issue 19 #7).
func TestServeDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "dta")
	if out := refuse(t, dir, nil, []string{"--data-dir", typo}, "data dir "+typo+" does not exist", "--init"); strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("the refusal is not one line:\n%s", out)
	}
	mustNotExist(t, typo)
	// On PostgreSQL the directory holds no records: the refusal says what
	// --init creates there, not "a new database" (refused before the
	// database is reached, so no server needs to listen at the URL).
	pg := []string{"LICENSECTL_STORAGE_DRIVER=postgres", "LICENSECTL_STORAGE_POSTGRES_URL=postgres://nobody@127.0.0.1:1/none"}
	out := refuse(t, dir, pg, []string{"--data-dir", typo}, "data dir "+typo+" does not exist", "--init to create it empty", "storage.postgres.url database", "operator token file")
	if strings.Contains(out, "new database") {
		t.Fatalf("on PostgreSQL the refusal promises a new database:\n%s", out)
	}
	mustNotExist(t, typo)

	// --init creates it, parents too, 0700, with a database and a token.
	deep := filepath.Join(dir, "srv", "licensectl")
	startServe(t, dir, nil, "listening", "--init", "--data-dir", deep)
	wantMode(t, deep, 0o700)
	wantMode(t, filepath.Join(dir, "srv"), 0o700)
	wantMode(t, filepath.Join(deep, "operator.token"), 0o600)
	wantMode(t, filepath.Join(deep, "licensectl.db"), 0o600)

	// No flag at all: the default ./data of the working directory.
	fresh := t.TempDir()
	startServe(t, fresh, nil, "listening")
	wantMode(t, filepath.Join(fresh, "data"), 0o700)
	if _, err := os.Stat(filepath.Join(fresh, "data", "licensectl.db")); err != nil {
		t.Fatal(err)
	}

	// An existing directory is used as it is, empty or not.
	empty := filepath.Join(dir, "volume")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	startServe(t, dir, nil, "listening", "--data-dir", empty)
}

// Issue 25 #2: a bad configuration is refused before anything is written.
func TestServeBadConfigWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	refuse(t, dir, nil, []string{"--init", "--listen", "nonsense", "--data-dir", data}, `server.listen: must be host:port`, `"nonsense"`)
	refuse(t, dir, []string{"LICENSECTL_LOG_LEVEL=verbose"}, []string{"--init", "--data-dir", data}, "log.level: must be one of")
	mustNotExist(t, data)
	refuse(t, dir, []string{"LICENSECTL_SERVER_TLS_CERT_FILE=" + filepath.Join(dir, "none.pem"), "LICENSECTL_SERVER_TLS_KEY_FILE=" + filepath.Join(dir, "none.key")},
		[]string{"--init", "--data-dir", data}, "server.tls.cert_file", "none.pem")
	mustNotExist(t, data)
	refuse(t, dir, nil, []string{"--init", "--dev", "--listen", "0.0.0.0:0", "--data-dir", data}, "--dev listens on loopback only", `server.listen "0.0.0.0:0"`)
	mustNotExist(t, data)
	refuse(t, dir, []string{"LICENSECTL_METRICS_LISTEN=0.0.0.0:0"}, []string{"--init", "--dev", "--listen", "127.0.0.1:0", "--data-dir", data}, "--dev listens on loopback only", `metrics.listen "0.0.0.0:0"`)
	mustNotExist(t, data)
}

// Issue 19 #7, docs/design.md §11: a 0-byte database file is not formatted as a
// new database.
func TestServeRefusesEmptyDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(data, "licensectl.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refuse(t, dir, nil, []string{"--data-dir", data}, db+" is empty (0 bytes)", "licensectl restore")
	if fi, err := os.Stat(db); err != nil || fi.Size() != 0 {
		t.Fatalf("the empty database was touched: %v %v", fi, err)
	}
	mustNotExist(t, filepath.Join(data, "operator.token"))
}

// Issue 25 #2: a LICENSECTL_* variable that sets nothing is warned about,
// by name; the known ones are not.
func TestServeWarnsUnknownEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, []string{"LICENSECTL_WEBHOOK_ALLOW_HTTP=true", "LICENSECTL_WEBHOOKS_ALLOW_HTTP=true", "LICENSECTL_SERVER=http://x"},
		"listening", "--init", "--data-dir", filepath.Join(dir, "data"))
	all := strings.Join(s.stderr, "\n")
	if !strings.Contains(all, "unknown environment variable") || !strings.Contains(all, "name=LICENSECTL_WEBHOOK_ALLOW_HTTP") {
		t.Fatalf("no warning naming LICENSECTL_WEBHOOK_ALLOW_HTTP:\n%s", all)
	}
	if strings.Contains(all, "name=LICENSECTL_WEBHOOKS_ALLOW_HTTP") || strings.Contains(all, "name=LICENSECTL_SERVER ") {
		t.Fatalf("warned about a known variable:\n%s", all)
	}
}

// Issue 25 #1, docs/design.md §2: serve --dev prints the operator token and the
// way to use it, and allows what local webhook testing needs.
func TestServeDev(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, nil, "operator token:", "--dev", "--init", "--data-dir", filepath.Join(dir, "data"))
	var token string
	for _, l := range s.stderr {
		if _, tok, ok := strings.Cut(l, "operator token: "); ok {
			token = strings.TrimSpace(tok)
		}
	}
	if !strings.Contains(strings.Join(s.stderr, "\n"), "NEVER USE IN PRODUCTION") || !strings.HasPrefix(token, "op_") {
		t.Fatalf("no banner with the token:\n%s", strings.Join(s.stderr, "\n"))
	}
	c := newRemote(t, s.url, token)
	c.ok("org", "create", "Acme", "--owner-email", "ops@acme.test", "--owner-password-file", passwordFile(t))
	op := c.with("--org", "acme")
	op.ok("app", "create", "Studio", "--slug", "studio")
	out := op.ok("webhook", "create", "--app", "studio", "--url", "http://127.0.0.1:9/hook", "--events", "*")
	if !strings.Contains(out, "http://127.0.0.1:9/hook") {
		t.Fatalf("webhook create:\n%s", out)
	}
	// Issue 25 #4: the operator token with --org lists the event names.
	if out := op.ok("webhook", "events"); !strings.Contains(out, "license.created") {
		t.Fatalf("webhook events:\n%s", out)
	}
	if out := c.ok("webhook", "events"); !strings.Contains(out, "license.created") {
		t.Fatalf("webhook events without --org:\n%s", out)
	}
}

// A command that finds the file locked by a running server names that
// server's address, wherever it listens, not this configuration's default;
// the note goes with the server.
func TestLockedFileNamesServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	s := startServe(t, dir, nil, "listening", "--init", "--data-dir", data)
	if s.url == "" || strings.HasSuffix(s.url, ":8080") {
		t.Fatalf("serve url = %q, want a random port", s.url)
	}
	cmd := exec.Command(binary, "app", "list", "--data-dir", data)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--server "+s.url+" ") {
		t.Fatalf("app list on a served file: %v\n%s\nwant --server %s", err, out, s.url)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	if _, err := os.Stat(filepath.Join(data, serveURLFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the address note outlived the server: %v", err)
	}
}

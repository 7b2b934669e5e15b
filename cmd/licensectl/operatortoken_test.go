package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store/postgres/pgtest"
)

// storeEnv is the environment that points the binary at the store
// LICENSECTL_TEST_STORE names: nothing for the bbolt file of --data-dir,
// storage.driver and a new database for postgres.
func storeEnv(t *testing.T) []string {
	t.Helper()
	if os.Getenv(servertest.StoreEnv) != "postgres" {
		return nil
	}
	return []string{"LICENSECTL_STORAGE_DRIVER=postgres", "LICENSECTL_STORAGE_POSTGRES_URL=" + pgtest.URL(t)}
}

// adminStatus is the status of GET /v1/admin/organizations with tok.
func adminStatus(t *testing.T, url, tok string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/v1/admin/organizations", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// readToken is the operator token in the data directory dir.
func readToken(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "operator.token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The operator token's hash lives in the store (docs/design.md §12): the
// server that initialises the store writes the token file, a second server
// on the same database writes none and accepts the same token, and
// `operator-token rotate` ends the old token at once on every server.
// bbolt's file is locked by its server, so there the rotation happens
// between two runs of the server.
func TestOperatorTokenInStore(t *testing.T) {
	t.Parallel()
	env := storeEnv(t)
	onPostgres := env != nil
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	first := startServe(t, dir, env, "listening", "--init", "--data-dir", data)
	tok := readToken(t, data)
	if !strings.HasPrefix(tok, "op_") {
		t.Fatalf("operator.token holds %q", tok)
	}
	urls := []string{first.url}
	if onPostgres {
		other := t.TempDir()
		second := startServe(t, other, env, "listening", "--init", "--data-dir", filepath.Join(other, "data"))
		if _, err := os.Stat(filepath.Join(other, "data", "operator.token")); !os.IsNotExist(err) {
			t.Fatalf("the second server wrote a token file (%v): the store had its token already", err)
		}
		urls = append(urls, second.url)
	}
	for _, u := range urls {
		if got := adminStatus(t, u, tok); got != http.StatusOK {
			t.Fatalf("the first server's token on %s: %d, want 200", u, got)
		}
	}

	if !onPostgres {
		first.stop(t)
	}
	var v operatorTokenView
	(&cli{t: t, dir: dir, args: []string{"--data-dir", data}, env: env}).json(&v, "operator-token", "rotate")
	if v.OperatorToken == tok || !strings.HasPrefix(v.OperatorToken, "op_") || v.File != filepath.Join(data, "operator.token") {
		t.Fatalf("rotate = %+v; want a new token written to the data directory's file", v)
	}
	if got := readToken(t, data); got != v.OperatorToken {
		t.Fatalf("operator.token holds %q after rotate, want the new token", got)
	}
	if !onPostgres {
		urls = []string{startServe(t, dir, env, "listening", "--data-dir", data).url}
	}
	for _, u := range urls {
		if got := adminStatus(t, u, tok); got != http.StatusUnauthorized {
			t.Fatalf("the old token on %s after rotate: %d, want 401", u, got)
		}
		if got := adminStatus(t, u, v.OperatorToken); got != http.StatusOK {
			t.Fatalf("the new token on %s: %d, want 200", u, got)
		}
	}
}

// A data directory from before the hash moved into the store keeps its
// token: the first server to find the store without a hash adopts the
// file's token rather than make another.
func TestOperatorTokenFileAdopted(t *testing.T) {
	t.Parallel()
	env := storeEnv(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	const tok = "op_fromAnEarlierReleaseOfLicensectl0000000000000"
	if err := os.WriteFile(filepath.Join(data, "operator.token"), []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, dir, env, "listening", "--data-dir", data)
	if got := adminStatus(t, s.url, tok); got != http.StatusOK {
		t.Fatalf("the earlier token: %d, want 200", got)
	}
	if got := readToken(t, data); got != tok {
		t.Fatalf("operator.token holds %q, want the earlier token kept", got)
	}
}

// A restored backup takes the token the data directory keeps, not the one
// it was made under: the token file restore reports kept goes on working,
// and a token rotated away before the restore stays ended.
func TestRestoreKeepsOperatorToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	s := startServe(t, dir, nil, "listening", "--init", "--data-dir", data)
	old := readToken(t, data)
	s.stop(t)
	c := &cli{t: t, dir: dir, args: []string{"--data-dir", data}}
	backup := filepath.Join(dir, "backup.db")
	c.ok("backup", backup)
	var v operatorTokenView
	c.json(&v, "operator-token", "rotate")
	if out := c.ok("restore", backup); !strings.Contains(out, "kept the operator token") {
		t.Fatalf("restore said:\n%s", out)
	}
	s = startServe(t, dir, nil, "listening", "--data-dir", data)
	if got := adminStatus(t, s.url, v.OperatorToken); got != http.StatusOK {
		t.Fatalf("the kept token after restore: %d, want 200", got)
	}
	if got := adminStatus(t, s.url, old); got != http.StatusUnauthorized {
		t.Fatalf("the backup's own token after restore: %d, want 401", got)
	}
	s.stop(t)
	var r restoreView
	c.json(&r, "restore", backup, "--new-operator-token")
	s = startServe(t, dir, nil, "listening", "--data-dir", data)
	if tok := readToken(t, data); tok == v.OperatorToken || adminStatus(t, s.url, tok) != http.StatusOK || adminStatus(t, s.url, v.OperatorToken) != http.StatusUnauthorized {
		t.Fatalf("after restore --new-operator-token the file's new token must work and the previous must not")
	}
}

// Messages and logs name the database without its password, whatever form
// storage.postgres.url takes.
func TestDescribePostgres(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://lc:hunter2@db.internal:5432/lc?sslmode=verify-full": "postgres://lc@db.internal:5432/lc?sslmode=verify-full",
		"postgresql://lc@db/lc?password=hunter2&sslmode=require":        "postgresql://lc@db/lc?sslmode=require",
		"host=db.internal user=lc password=hunter2 dbname=lc":           "PostgreSQL host=db.internal user=lc dbname=lc",
	} {
		if got := describePostgres(in); got != want || strings.Contains(got, "hunter2") {
			t.Errorf("describePostgres(%q) = %q, want %q", in, got, want)
		}
	}
}

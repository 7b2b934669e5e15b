package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the indented code block that follows the line
// "<!-- readme-test: name -->" in the README, unindented.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- readme-test: "+name+" -->\n")
	if !ok {
		t.Fatalf("README.md has no block marked readme-test: %s", name)
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		code, ok := strings.CutPrefix(l, "    ")
		if !ok {
			break
		}
		lines = append(lines, code)
	}
	if len(lines) == 0 {
		t.Fatalf("readme-test: %s marks no indented block", name)
	}
	return strings.Join(lines, "\n") + "\n"
}

// runBlock runs script with bash in dir, the built binary first on PATH
// as licensectl and no LICENSECTL_* variables, and returns its output.
func runBlock(t *testing.T, dir, name, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README block %q: %v\n--- script\n%s--- output\n%s", name, err, script, out)
	}
	return string(out)
}

// Issue 25 #3: the README's first-hour blocks work as written on a fresh
// directory: the server of its first command (default ./data), the remote
// block against it, then the local block once it is stopped. Only the
// server's address differs, since 8080 may be taken where tests run.
func TestREADMEFirstHour(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	srv := startServe(t, work, nil, "listening")
	remote := strings.ReplaceAll(readmeBlock(t, "remote"), "http://127.0.0.1:8080", srv.url)
	runBlock(t, work, "remote", remote)
	keys, err := os.ReadFile(filepath.Join(work, "keys.txt"))
	if err != nil || strings.Count(string(keys), "\n") != 500 {
		t.Fatalf("keys.txt: %d lines (%v)", strings.Count(string(keys), "\n"), err)
	}
	if _, err := os.Stat(filepath.Join(work, "backup.db")); err != nil {
		t.Fatal(err)
	}
	srv.stop(t)
	out := runBlock(t, work, "local", readmeBlock(t, "local"))
	if !strings.Contains(out, "acme") || !strings.Contains(out, "of 500") {
		t.Fatalf("local block:\n%s", out)
	}
}

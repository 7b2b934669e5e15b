package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTree drives scripts/check-tree, the check scripts/test runs on
// what the repository tracks, over small repositories made for each case,
// so that the check is seen to refuse what it must, and then over this
// repository.
func TestCheckTree(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "check-tree"))
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("a line of data\n"), 80_000) // 1.2 MB
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		want  string // "" = passes
	}{
		// Images do not count towards the tree's size: 5.25 MB less 1 KB
		// of text and a 1 MB image pass.
		{"OK", map[string][]byte{"main.go": []byte("package main\n"), "logo.png": big[:1_000_000], "a.txt": big[:1_000_000], "b.txt": big[:1_000_000], "c.txt": big[:1_000_000], "d.txt": big[:1_000_000], "e.txt": big[:249_000]}, ""},
		{"ErrELF", map[string][]byte{"licensectl-load": append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...)}, "licensectl-load is an ELF executable"},
		{"ErrMachO", map[string][]byte{"tool": {0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}}, "tool is a Mach-O executable"},
		{"ErrPE", map[string][]byte{"tool.bin": []byte("MZ\x90\x00\x03")}, "tool.bin is a PE (Windows) executable"},
		{"ErrLargeFile", map[string][]byte{"domains.txt": big}, "domains.txt is 1200000 bytes, over 1048576"},
		{"ErrLargeTree", map[string][]byte{"a.txt": big[:1_000_000], "b.txt": big[:1_000_000], "c.txt": big[:1_000_000], "d.txt": big[:1_000_000], "e.txt": big[:1_000_000], "f.txt": big[:250_000]}, "hold 5250000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("add", ".")
			out, err := exec.Command(script, dir).CombinedOutput()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("check-tree refused a clean tree: %v\n%s", err, out)
			case tc.want != "" && err == nil:
				t.Fatalf("check-tree passed, want a refusal naming %q\n%s", tc.want, out)
			case tc.want != "" && !strings.Contains(string(out), tc.want):
				t.Fatalf("check-tree said %q, want %q", out, tc.want)
			}
		})
	}
	t.Run("ThisRepository", func(t *testing.T) {
		t.Parallel()
		if out, err := exec.Command(script).CombinedOutput(); err != nil {
			t.Fatalf("check-tree refuses this repository: %v\n%s", err, out)
		}
	})
}

package terminit_test

import (
	"bytes"
	"os"
	"testing"

	_ "licensectl/tui" // its init restores TERM after bubbletea's
)

// TestTERMRestored: after every init, TERM is what the process was started
// with (/proc/self/environ keeps the environment as exec gave it), so the
// TUI and any program it starts see the user's terminal.
func TestTERMRestored(t *testing.T) {
	raw, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	want, had := "", false
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("TERM=")); ok {
			want, had = string(v), true
		}
	}
	got, ok := os.LookupEnv("TERM")
	if got != want || ok != had {
		t.Fatalf("TERM = %q (set %v), the process started with %q (set %v)", got, ok, want, had)
	}
}

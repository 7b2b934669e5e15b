package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store/bolt"
)

func TestTUINeedsATerminal(t *testing.T) {
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	c.fails(2, args("tui"), "licensectl tui needs an interactive terminal; use the CLI commands in scripts")
}

// pane is the real binary running in a detached tmux pane of its own
// server (-L), driven by send-keys and read by capture-pane, as a person
// at a terminal would.
type pane struct {
	t      *testing.T
	socket string
}

func tmuxAvailable(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is missing on CI (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
}

func startPane(t *testing.T, dir string, argv ...string) *pane {
	t.Helper()
	p := &pane{t: t, socket: fmt.Sprintf("lctui%d", time.Now().UnixNano())}
	// The pane keeps showing after the program exits, for the assertions
	// about what it printed.
	shell := "cd " + dir + " && env -u TMUX LANG=C.UTF-8 " + strings.Join(argv, " ") + "; echo EXITED $?; sleep 60"
	p.tmux("new-session", "-d", "-x", "100", "-y", "30", shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *pane) capture() string { return p.tmux("capture-pane", "-p") }

// keys sends tmux key names one at a time; text sends literal text.
func (p *pane) keys(keys ...string) {
	for _, k := range keys {
		p.tmux("send-keys", k)
		if k == "Escape" {
			// An ESC followed at once by a key reads as alt+key.
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func (p *pane) text(s string) { p.tmux("send-keys", "-l", s) }

// wait polls the screen until it shows want and the TUI is idle.
func (p *pane) wait(want ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := p.capture()
		ok := strings.Contains(s, "ready") || strings.Contains(s, "EXITED") || strings.Contains(s, "Terminal too small")
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// settle gives the TUI time to act on keys that must change nothing.
func (p *pane) settle() string {
	time.Sleep(200 * time.Millisecond)
	return p.wait()
}

func TestTUIEndToEnd(t *testing.T) {
	tmuxAvailable(t)
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	c.ok("app", "create", "photo-editor")
	c.ok("plan", "create", "--app", "photo-editor", "Pro", "--max-devices", "2")
	c.ok("license", "generate", "--app", "photo-editor", "--plan", "Pro", "-n", "249")
	key := strings.TrimSpace(c.ok("license", "generate", "--app", "photo-editor", "--plan", "Pro", "-o", "keys"))
	data := filepath.Join(c.dir, "data")

	t.Run("Local", func(t *testing.T) {
		p := startPane(t, c.dir, binary, "--data-dir", data, "tui", "--app", "photo-editor")
		p.wait("[1 Overview]", "local ", "Licenses  250")
		p.keys("2")
		p.wait("[2 Licenses]", "250 matching", "page 1/3")
		// A key typed as a person reads it: lower case, spaces for dashes.
		p.keys("/")
		p.text(strings.ToLower(strings.ReplaceAll(key, "-", " ")))
		p.keys("Enter")
		p.wait("License "+key, "validate now?   YES")
		p.keys("s")
		p.wait("Suspend license")
		p.keys("Enter")
		if s := p.settle(); !strings.Contains(s, "Suspend license") || strings.Contains(s, "NO ▸ license_suspended") {
			t.Fatalf("enter confirmed or closed the dialog:\n%s", s)
		}
		p.keys("y")
		p.wait("NO ▸ license_suspended", "root cause")
		p.keys("u")
		p.wait("Reinstate license")
		p.keys("y")
		p.wait("validate now?   YES")
		p.keys("X")
		p.wait(`Type "revoke"`)
		time.Sleep(200 * time.Millisecond)
		p.keys("Enter")
		p.wait(`type "revoke" to confirm`)
		p.text("revoke")
		p.keys("Enter")
		p.wait("NO ▸ license_revoked")
		p.keys("Escape")
		p.wait("Licenses [", "revoked")
		p.keys("Escape", "G")
		p.wait("row 250 of 250", "page 3/3")
		p.keys("?")
		p.wait("Keys", "last row of the whole list")
		p.keys("Escape", ":")
		p.text("plans")
		p.keys("Enter")
		p.wait("[8 Plans]", "Pro")
		p.tmux("resize-window", "-x", "50", "-y", "12")
		p.wait("Terminal too small: 50×12")
		p.tmux("resize-window", "-x", "100", "-y", "30")
		p.wait("[8 Plans]")
		p.keys("q")
		p.wait("EXITED 0")
	})

	t.Run("ReadOnly", func(t *testing.T) {
		p := startPane(t, c.dir, binary, "--data-dir", data, "tui", "--app", "photo-editor", "--read-only")
		p.wait("READ-ONLY")
		p.keys("2")
		s := p.wait("250 matching")
		if strings.Contains(s, "s suspend") {
			t.Fatalf("read-only footer offers suspend:\n%s", s)
		}
		p.keys("s")
		if s := p.settle(); strings.Contains(s, "Suspend license") {
			t.Fatalf("read-only session asked to suspend:\n%s", s)
		}
		p.keys(":")
		p.text("generate")
		p.keys("Enter")
		p.wait("read-only session")
		p.keys("q")
		p.wait("EXITED 0")
	})

	t.Run("LockedFile", func(t *testing.T) {
		db, err := bolt.Open(filepath.Join(data, "licensectl.db"), bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		p := startPane(t, c.dir, binary, "--data-dir", data, "tui")
		p.wait("EXITED 1", "is locked by another process", "--server")
	})

	t.Run("Remote", func(t *testing.T) {
		srv := servertest.New(t)
		org := srv.NewOrg(t)
		r := newRemote(t, srv.URL, org.APIKey)
		r.ok("app", "create", "photo-editor")
		r.ok("plan", "create", "--app", "photo-editor", "Pro")
		r.ok("license", "generate", "--app", "photo-editor", "--plan", "Pro", "-n", "120")
		p := startPane(t, r.dir, binary, "--server", srv.URL, "--api-key", org.APIKey, "tui", "--app", "photo-editor")
		p.wait("remote "+srv.URL, "key …"+org.APIKey[len(org.APIKey)-4:], "Licenses  120")
		p.keys("2")
		p.wait("120 matching", "page 1/2")
		p.keys("s")
		p.wait("Suspend license")
		p.keys("y")
		p.wait("✓ Suspended")
		p.keys("]")
		p.wait("row 101 of 120", "page 2/2")
		p.keys("q")
		p.wait("EXITED 0")
	})
}

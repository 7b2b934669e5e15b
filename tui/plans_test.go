package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// TestEditPlan: e opens the plan's values in the form; a value the store
// refuses comes back under its field; a good one is saved.
func TestEditPlan(t *testing.T) {
	s := seed(t, 0)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("8", "e")
	h.contains("Edit plan Pro")
	h.contains("Max devices:     2")
	h.press("tab", "backspace", "0", "ctrl+s")
	h.contains("Edit plan Pro") // still open, the store's reason under the field
	h.contains("max_devices")
	h.press("backspace", "5", "ctrl+s")
	h.contains("✓ Saved plan Pro")
	p, err := s.db.FindPlan(context.Background(), s.scope().App(), s.plan.ID)
	if err != nil || p.MaxDevices != 5 || p.Name != "Pro" || p.RebindMode() != store.RebindMost {
		t.Fatalf("plan after e = %+v, %v", p, err)
	}
	// The form opens on the plan's re-binding and sends what it shows.
	h.press("8", "e", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "right", "ctrl+s")
	h.contains("✓ Saved plan Pro")
	if p, err = s.db.FindPlan(context.Background(), s.scope().App(), s.plan.ID); err != nil || p.Rebind != store.RebindOff || p.MaxDevices != 5 {
		t.Fatalf("plan after re-binding off = %+v, %v", p, err)
	}
	h.press("8", "e", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "ctrl+s")
	h.contains("✓ Saved plan Pro")
	if p, err = s.db.FindPlan(context.Background(), s.scope().App(), s.plan.ID); err != nil || p.Rebind != store.RebindOff {
		t.Fatalf("an edit that left re-binding alone changed it: %+v, %v", p, err)
	}
}

// TestEditPoliciesInEditor: P writes the policies to a file, runs $EDITOR
// on it (here a script standing in for the user) and stores what it left;
// what is not a JSON object is refused and nothing changes.
func TestEditPoliciesInEditor(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Setenv("VISUAL", "")
	editor := filepath.Join(dir, "editor.sh")
	write := func(body string) {
		if err := os.WriteFile(editor, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("EDITOR", editor)
	s := seed(t, 0)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.m.c.execProcess = func(cmd *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		return func() tea.Msg { return done(cmd.Run()) }
	}
	// The editor sees {} and leaves a policy.
	write(`grep -q '^{}$' "$1" || exit 3; printf '{"offline_days": 7}' > "$1"`)
	h.press("8", "P")
	h.contains("✓ Saved the policies of plan Pro")
	p, err := s.db.FindPlan(context.Background(), s.scope().App(), s.plan.ID)
	if err != nil || strings.ReplaceAll(string(p.Policies), " ", "") != `{"offline_days":7}` {
		t.Fatalf("policies = %s, %v", p.Policies, err)
	}
	// Not an object: refused, nothing changes.
	write(`grep -q offline_days "$1" || exit 3; echo '[1, 2]' > "$1"`)
	h.press("P")
	h.contains("policies must be a JSON object; nothing was saved")
	if p2, _ := s.db.FindPlan(context.Background(), s.scope().App(), s.plan.ID); string(p2.Policies) != string(p.Policies) {
		t.Fatalf("policies changed to %s", p2.Policies)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "licensectl-policies-*")); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

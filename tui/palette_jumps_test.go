package tui

import (
	"context"
	"testing"
)

// TestPaletteJumps (docs/tui.md §7.3): :org and :app look up what they name and
// replace the stack; :generate opens the form; :user and :device open
// their exact find.
func TestPaletteJumps(t *testing.T) {
	s := seed(t, 1)
	ctx := context.Background()
	u, err := s.db.RegisterEndUser(ctx, s.scope(), "ada@example.com", "long enough password")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press(":", "org acme", "enter")
	h.contains("[1 Apps]")
	h.press(":", "app photo-editor", "enter")
	h.contains("[1 Overview]")
	h.press(":", "app nowhere", "enter")
	h.contains(`✗ not_found: no application "nowhere"`)
	h.press(":", "org nobody", "enter")
	h.contains(`✗ not_found: no organization "nobody"`)
	h.press(":", "generate", "enter")
	h.contains("Generate licenses into PRODUCTION")
	h.press("esc", ":", "user "+u.Email, "enter")
	h.contains("User " + u.Email)
	if got := h.m.c.appID; got != s.app.ID {
		t.Fatalf("app after the jumps: %s", got)
	}
}

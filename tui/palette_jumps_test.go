package tui

import (
	"context"
	"strings"
	"testing"

	"licensectl/store"
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

// TestPaletteLicenseJump (docs/tui.md §5, §7.3): :license takes a key or a
// full id, and a ':' jump replaces the stack with the canonical path (the
// app dashboard on Licenses, the license above it) wherever it starts.
func TestPaletteLicenseJump(t *testing.T) {
	s := seed(t, 3)
	items := s.licenseItems(t)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	crumb := func(key string) string { return "PRODUCTION ▸ Licenses ▸ " + key[:5] + "…" + key[24:] }
	for _, tc := range []struct{ name, arg, key string }{
		{"ID", items[1].ID, items[1].Key},
		{"Key", strings.ToLower(items[2].Key), items[2].Key},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// From a screen pushed on the Audit tab: an entry opened there.
			h.press(":", "audit", "enter", "enter")
			if len(h.m.stack) != 3 {
				t.Fatalf("stack %d, want the audit entry on top", len(h.m.stack))
			}
			h.press(":", "license "+tc.arg, "enter")
			h.contains("License " + tc.key)
			h.contains(crumb(tc.key))
			if len(h.m.stack) != 3 || strings.Contains(h.view(), "Audit") {
				t.Fatalf("the jump pushed onto the stack (%d screens):\n%s", len(h.m.stack), h.view())
			}
			h.press("esc")
			h.contains("[2 Licenses]")
		})
	}
	h.press(":", "license 01a21655-a0d1", "enter")
	h.contains("✗ not a license key or id: 01a21655-a0d1")
}

// TestPaletteArguments (docs/tui.md §7.3): ":licenses [STATUS] [plan=NAME]"
// and ":audit [EVENT] [since=24h]" are server filters, as their key:value
// forms are; none of them is page-local text.
func TestPaletteArguments(t *testing.T) {
	s := seed(t, 5)
	for _, l := range s.licenseItems(t)[:2] {
		if _, err := s.db.SetLicenseStatus(context.Background(), s.scope(), l.ID, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	for _, tc := range []struct{ line, chips, total string }{
		{"licenses plan=Pro", "Licenses [plan:Pro]", "5 matching"},
		{"licenses plan:pro", "Licenses [plan:pro]", "5 matching"},
		{"lic suspended plan=Pro", "Licenses [status:suspended] [plan:Pro]", "2 matching"},
		{"audit license.suspended", "Audit [event:license.suspended]", "2 matching"},
		// The fixed clock is not the store's: a wide window holds its entries.
		{"audit license.suspended since=87600h", "Audit [event:license.suspended] [since:87600h]", "2 matching"},
		{"audit event:license.created", "Audit [event:license.created]", "5 matching"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			h.press(":", tc.line, "enter")
			h.contains(tc.chips)
			h.contains(tc.total)
			if strings.Contains(h.view(), "page-local") {
				t.Fatalf("%q filtered page-locally:\n%s", tc.line, h.view())
			}
		})
	}
	h.press(":", "l")
	h.contains("licenses [STATUS] [plan=NAME]")
	h.press("esc", ":", "au")
	h.contains("audit [EVENT] [since=24h]")
}

package tui

import (
	"bytes"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestClipboardModes: tui.clipboard decides how y copies: plain OSC 52,
// OSC 52 wrapped for tmux passthrough, or nothing at all.
func TestClipboardModes(t *testing.T) {
	t.Setenv("STY", "")
	t.Setenv("DISPLAY", "") // no desktop: auto is OSC 52 alone
	t.Setenv("WAYLAND_DISPLAY", "")
	for _, tc := range []struct {
		mode, prefix, status string
	}{
		{"", "\x1b]52;c;", "✓ Copied 7KQ2M-…-C5V00"},
		{ClipOSC52, "\x1b]52;c;", "✓ Copied 7KQ2M-…-C5V00"},
		{ClipOSC52Tmux, "\x1bPtmux;\x1b\x1b]52;c;", "✓ Copied 7KQ2M-…-C5V00"},
		{ClipOff, "", "✗ copy: clipboard is off"},
	} {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			var clip bytes.Buffer
			h := fakeHarness(t, newFake(), 100, 30, Options{Clipboard: &clip, ClipboardMode: tc.mode})
			h.press("2", "y")
			h.contains(tc.status)
			if got := clip.String(); tc.prefix == "" && got != "" || !strings.HasPrefix(got, tc.prefix) {
				t.Fatalf("written to the terminal: %q, want the prefix %q", got, tc.prefix)
			}
		})
	}
}

// TestMouseWheelScrolls: with the mouse on, the wheel moves the cursor as
// the arrow keys do.
func TestMouseWheelScrolls(t *testing.T) {
	h := fakeHarness(t, newFake(), 100, 30, Options{Mouse: true})
	h.press("2")
	l := h.licenseList()
	h.send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	h.send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	h.send(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if l.cursor != 1 {
		t.Fatalf("cursor after two wheel-downs and a wheel-up: %d, want 1", l.cursor)
	}
	// A click on a row selects it; one on the tab bar switches tabs. The
	// header is line 0, the tab bar 1, the list's title 2, the table's
	// header 3 and its first row 4.
	_ = h.view() // clicks land on what was drawn
	h.send(tea.MouseMsg{X: 5, Y: 6, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if l.cursor != 2 {
		t.Fatalf("cursor after a click on the third row: %d, want 2", l.cursor)
	}
	bar := strings.Split(h.view(), "\n")[1]
	h.send(tea.MouseMsg{X: strings.Index(bar, "8 Plans") + 2, Y: 1, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	h.contains("[8 Plans]")
	h.press(":", "mouse", "enter")
	h.contains("Mouse off")
}

// TestPaletteSelectionActions (docs/tui.md §7.3): the palette lists what the
// selected row allows and choosing an entry opens the same confirmation as
// its key; read-only sessions are told why not.
func TestPaletteSelectionActions(t *testing.T) {
	h := fakeHarness(t, newFake(), 120, 30, Options{})
	h.press("2", ":", "sus")
	h.contains("on the selection: suspend license 7KQ2M-…-C5V00")
	h.press("tab", "enter")
	h.contains("Suspend license 7KQ2M-…-C5V00 in PRODUCTION?")

	ro := fakeHarness(t, newFake(), 120, 30, Options{ReadOnly: true, Clipboard: &bytes.Buffer{}})
	ro.press("2", ":", "suspend", "enter")
	ro.contains("read-only session")
	ro.press("esc", ":", "copy", "enter")
	ro.contains("Copied")
}

// TestShowValue (docs/tui.md §11): v shows the value alone, for a mouse copy
// when the terminal dropped OSC 52.
func TestShowValue(t *testing.T) {
	f := newFake()
	h := fakeHarness(t, f, 100, 30, Options{})
	h.press("2", "v")
	lines := strings.Split(h.view(), "\n")
	if len(lines) != 30 || lines[0] != f.licenses[0].Key || strings.TrimSpace(strings.Join(lines[1:29], "")) != "" ||
		lines[29] != "select it with the mouse · any key returns" {
		t.Fatalf("v does not show the key alone:\n%s", h.view())
	}
	h.press("esc")
	h.contains("[2 Licenses]")
	h.press("enter", "v")
	h.contains(f.licenses[0].Key + "\n")
	if v := h.view(); strings.Contains(v, "Would a session") {
		t.Fatalf("the detail shows under the value:\n%s", v)
	}
}

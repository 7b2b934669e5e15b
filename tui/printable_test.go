package tui

import (
	"context"
	"strings"
	"testing"

	"licensectl/store/bolt"
)

// TestStoredEscapesPrinted: a device fingerprint stored by a release before
// the input rules (docs/design.md §8) holds an OSC that retitles the terminal and
// a CSI that clears it; the device list and the device detail show it
// escaped, never raw.
func TestStoredEscapesPrinted(t *testing.T) {
	s := seed(t, 1)
	const fp = "old\x1b]0;owned\x07\x1b[2J\u202e"
	if _, err := bolt.FixturesOf(s.db).SeedLegacyDevice(context.Background(), s.scope(), fp); err != nil {
		t.Fatal(err)
	}
	h, _ := s.licenses(t, s.db, Options{})
	h.press("4")
	h.contains(`old\x1b]0;owned\x07\x1b[2J\u202e`)
	if v := h.view(); strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Fatalf("the device list drew stored controls raw:\n%q", v)
	}
	h.press("enter")
	h.contains(`Device old\x1b]0;owned`)
	if v := h.view(); strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Fatalf("the device detail drew stored controls raw:\n%q", v)
	}
}

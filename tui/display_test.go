package tui

import (
	"regexp"
	"testing"
)

// What the screens show (docs/tui.md §5, §6, §10, §12).

// TestDevColumnIsBoundOverMax (docs/tui.md §5.4): DEV is bound/max, the max
// being the plan's as it is now (max_devices applies live), and a dash when
// the plan is gone.
func TestDevColumnIsBoundOverMax(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bound int
		plan  func(f *fakeData) // a change to the plans after the first load
		want  string
	}{
		{"full", 2, nil, "2/2"},
		{"none", 0, nil, "0/2"},
		{"plan raised", 2, func(f *fakeData) { f.plans[0].MaxDevices = 5 }, "2/5"},
		{"plan gone", 1, func(f *fakeData) { f.plans = nil }, "1/—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.licenses[0].DevicesCount = tc.bound
			h := fakeHarness(t, f, 100, 30, Options{})
			h.press("2")
			if tc.plan != nil {
				tc.plan(f)
				h.press("ctrl+r")
			}
			row := regexp.MustCompile(`C5V00 +active +Pro +user0@example\.com +(\S+) `).FindStringSubmatch(h.view())
			if row == nil || row[1] != tc.want {
				t.Fatalf("DEV %v, want %s:\n%s", row, tc.want, h.view())
			}
		})
	}
}

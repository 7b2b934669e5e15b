package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"licensectl/store"
)

// The flows below run the real tea.Program (its renderer, its command
// goroutines, its ticks) over a real bbolt file, driven by messages as a
// terminal would send them (docs/tui.md §15.3). Output is the raw stream, so the
// waits look for words, never for a whole screen.

func startProgram(t *testing.T, s *seeded, o Options) *teatest.TestModel {
	t.Helper()
	o.Data, o.OrgID, o.AppID, o.Env = s.db, s.orgID, s.app.ID, store.EnvProduction
	m, err := build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() { _ = tm.Quit() })
	return tm
}

func waitFor(t *testing.T, tm *teatest.TestModel, words ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
		for _, w := range words {
			if !bytes.Contains(out, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func press(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// command runs a palette command line.
func command(tm *teatest.TestModel, line string) {
	press(tm, ":")
	tm.Type(line)
	press(tm, "enter")
}

// TestProgramFindSuspend: open the licenses, find one by its key typed in
// the filter, suspend it with y and see the cascade's reason.
func TestProgramFindSuspend(t *testing.T) {
	s := seed(t, 30)
	target := s.licenseItems(t)[17]
	key := target.Key
	tm := startProgram(t, s, Options{})
	waitFor(t, tm, "Overview", "ready")
	press(tm, "2")
	waitFor(t, tm, "30 matching")
	press(tm, "/")
	tm.Type(key)
	press(tm, "enter")
	waitFor(t, tm, "validate now?")
	press(tm, "s")
	waitFor(t, tm, "Suspend license")
	press(tm, "y")
	waitFor(t, tm, "license_suspended")
	press(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	l, err := s.db.FindLicense(context.Background(), s.scope(), target.ID)
	if err != nil || l.Status != store.LicenseSuspended {
		t.Fatalf("stored license = %+v, %v", l, err)
	}
}

// TestProgramGenerate: the generation form creates licenses and lists the
// new keys.
func TestProgramGenerate(t *testing.T) {
	s := seed(t, 0)
	tm := startProgram(t, s, Options{})
	waitFor(t, tm, "Overview", "ready")
	press(tm, "2", "n")
	waitFor(t, tm, "Generate licenses into PRODUCTION")
	press(tm, "tab", "backspace")
	tm.Type("4")
	press(tm, "enter")
	waitFor(t, tm, "Generated 4 Pro licenses")
	press(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	p, err := s.db.ListLicenses(context.Background(), s.scope(), store.LicenseFilter{})
	if err != nil || p.Total != 4 {
		t.Fatalf("licenses after the form = %+v, %v", p, err)
	}
}

// TestProgramPalette: ':' jumps to a tab and ctrl+c leaves at once.
func TestProgramPalette(t *testing.T) {
	s := seed(t, 3)
	tm := startProgram(t, s, Options{})
	waitFor(t, tm, "Overview", "ready")
	command(tm, "plans")
	waitFor(t, tm, "[8 Plans]", "MAX DEV")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestProgramPaletteStatusPrefix (issue 25 item 14): in the real program,
// ":lic inac" filters the licenses by status, as ":lic inactive" does, and
// a new / filter replaces it instead of adding to it.
func TestProgramPaletteStatusPrefix(t *testing.T) {
	s := seed(t, 3)
	tm := startProgram(t, s, Options{})
	waitFor(t, tm, "Overview", "ready")
	command(tm, "lic inac")
	waitFor(t, tm, "[2 Licenses]", "Licenses [status:inactive]", "3 matching")
	press(tm, "/")
	tm.Type("active")
	press(tm, "enter")
	waitFor(t, tm, "Licenses [status:active]", "0 matching")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	v := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
	if !strings.Contains(v, "Licenses [status:active]") {
		t.Fatalf("the last filter is not status:active alone:\n%s", v)
	}
}

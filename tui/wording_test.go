package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// Issue 25 item 14: what the screens say.

// TestOverviewHintsNameTheirTabs: every "n on TAB (K)" of the Getting
// started checklist names the number key that shows that tab.
func TestOverviewHintsNameTheirTabs(t *testing.T) {
	f := newFake()
	f.plans, f.licenses = nil, nil // every checklist item open
	h := fakeHarness(t, f, 100, 30, Options{})
	hints := regexp.MustCompile(`n on (\w+) \((\d)\)`).FindAllStringSubmatch(h.view(), -1)
	if len(hints) != 4 {
		t.Fatalf("hints %v, want Plans, Licenses, Secrets and Webhooks:\n%s", hints, h.view())
	}
	for _, hint := range hints {
		tab, key := hint[1], hint[2]
		h.press(key)
		h.contains("[" + key + " " + tab + "]")
		h.press("1")
	}
}

// TestTooSmallFitsTheTerminal: below 60×16 the whole message is shown,
// wrapped at words within the width, and no line is cut.
func TestTooSmallFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{50, 12}, {59, 16}, {60, 15}, {24, 6}} {
		h := fakeHarness(t, newFake(), size[0], size[1], Options{})
		v := h.view()
		lines := strings.Split(v, "\n")
		if len(lines) > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if width(l) > size[0] || strings.Contains(l, "…") {
				t.Errorf("%dx%d: line %q does not fit", size[0], size[1], l)
			}
		}
		want := fmt.Sprintf("Terminal too small: %d×%d. licensectl tui needs at least 60×16.", size[0], size[1])
		if got := strings.Join(strings.Fields(v), " "); got != want {
			t.Errorf("%dx%d: %q, want %q", size[0], size[1], got, want)
		}
	}
}

// TestNewFilterStartsEmpty: / opens an empty filter; what is typed
// replaces the filter applied, instead of being appended to it.
func TestNewFilterStartsEmpty(t *testing.T) {
	h := fakeHarness(t, newFake(), 100, 30, Options{})
	h.press("2", "/", "inactive", "enter")
	l := h.licenseList()
	h.contains("Licenses [status:inactive]")
	h.press("/")
	if got := string(l.editing.value); got != "" {
		t.Fatalf("a new filter starts with %q", got)
	}
	h.press("suspended", "enter")
	if l.q.status != store.LicenseSuspended || strings.Join(l.q.chips, " ") != "status:suspended" || l.q.local != "" {
		t.Fatalf("filter after the second /: %+v", l.q)
	}
	h.contains("Licenses [status:suspended]")
}

// TestPaletteStatusPrefix: ":lic susp" filters by status as ":lic
// suspended" does; in / an abbreviation needs "status:", since a bare word
// there may be page-local text.
func TestPaletteStatusPrefix(t *testing.T) {
	for _, typed := range []string{"lic susp", "lic suspended", "licenses SUS", "l s"} {
		h := fakeHarness(t, newFake(), 100, 30, Options{})
		h.press(":", typed, "enter")
		l := h.licenseList()
		if l.q.status != store.LicenseSuspended || l.q.local != "" {
			t.Fatalf(":%s: filter %+v, want the status suspended", typed, l.q)
		}
		h.contains("Licenses [status:suspended]")
		h.contains("10 matching")
	}
	h := fakeHarness(t, newFake(), 100, 30, Options{})
	h.press(":", "users ban", "enter")
	if u := focused(h.m.top()).(*list); u.q.status != store.UserBanned {
		t.Fatalf(":users ban: filter %+v", u.q)
	}
	h.press("2", "/", "status:rev", "enter")
	if l := h.licenseList(); l.q.status != store.LicenseRevoked {
		t.Fatalf("/status:rev: filter %+v", l.q)
	}
	h.press("/", "susp", "enter")
	if l := h.licenseList(); l.q.status != "" || l.q.local != "susp" {
		t.Fatalf("/susp: filter %+v, want page-local text", l.q)
	}
	h.contains("page-local")
}

// TestHelpWrapsAtWords: help fits its box at every size, and a long
// description goes on under itself, broken between words.
func TestHelpWrapsAtWords(t *testing.T) {
	words := map[string]bool{"filter:": true, "_": true, "Keys": true, "—": true, "closes": true}
	for _, b := range append(append([]*binding{}, globalKeys...), licensesSpec.actions[0].b, keyGenerate, keyRevoke, keyBanLic, keyReinstate) {
		words[b.label] = true
		for _, w := range strings.Fields(b.help + " (irreversible) " + b.group) {
			words[w] = true
			if i := strings.Index(w, "/"); i > 0 { // "relative/absolute" may break after its slash
				words[w[:i+1]], words[w[i+1:]] = true, true
			}
		}
	}
	for _, size := range [][2]int{{60, 16}, {80, 24}, {100, 30}, {140, 40}} {
		h := fakeHarness(t, newFake(), size[0], size[1], Options{})
		h.press("2", "?")
		for _, l := range h.m.over.view(h.m.c, size[0], size[1]-3) {
			if width(l) > size[0] {
				t.Errorf("%dx%d: help line wider than the screen: %q", size[0], size[1], l)
			}
			for _, w := range strings.Fields(strings.Trim(l, "│┌┐└┘─ ")) {
				if !words[w] && strings.Trim(w, "─┌┐") != "" {
					t.Errorf("%dx%d: %q is not a whole word of the key table (line %q)", size[0], size[1], w, l)
				}
			}
		}
	}
}

// TestActivityNamesOnce: the live tail names who acted once: the operator
// is "operator", and a license acting on itself is not said twice.
func TestActivityNamesOnce(t *testing.T) {
	f := newFake()
	at := fixedNow.Add(-time.Minute)
	f.audit = []*store.AuditEntry{
		{ID: fixedID(53), Event: "runtime.replay_rejected", Actor: store.Actor{Type: store.ActorLicense}, Target: store.Target{Type: "license"}, IP: "203.0.113.9", CreatedAt: at},
		{ID: fixedID(52), Event: "license.activated", Actor: store.Actor{Type: store.ActorLicense, ID: fixedID(100)}, Target: store.Target{Type: "license", ID: fixedID(100)}, IP: "203.0.113.9", CreatedAt: at},
		{ID: fixedID(51), Event: "license.suspended", Actor: store.Actor{Type: store.ActorOperator, ID: "operator"}, Target: store.Target{Type: "license", ID: fixedID(100)}, CreatedAt: at},
		{ID: fixedID(50), Event: "license.created", Actor: store.Actor{Type: store.ActorAPIKey, ID: fixedID(60)}, Target: store.Target{Type: "license", ID: fixedID(100)}, CreatedAt: at},
	}
	h := fakeHarness(t, f, 100, 30, Options{Remote: true})
	h.m.c.where = "http://127.0.0.1:8080"
	h.press("5")
	v := h.view()
	flat := strings.Join(strings.Fields(v), " ")
	for _, bad := range []string{"operator operator", "license license"} {
		if strings.Contains(flat, bad) {
			t.Errorf("Activity says %q:\n%s", bad, v)
		}
	}
	for _, want := range []string{
		"runtime.replay_rejected license 203.0.113.9",
		"license.activated license 000000000100 203.0.113.9",
		"license.suspended operator license 000000000100",
		"license.created api_key 000000000060 license 000000000100",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("Activity lacks %q:\n%s", want, v)
		}
	}
	golden(t, "activity_100x30", v)
}

// TestPageLocalFilterSaysWhatSearchesAll: on the paged Users and Devices
// tabs, / shows that list's own forms while it is typed, and text that
// filters only the loaded page says so and names what searches every row
// (the palette jump, the exact form), not the license list's plan: or key.
func TestPageLocalFilterSaysWhatSearchesAll(t *testing.T) {
	for _, tc := range []struct {
		tab, syntax, all string
	}{
		{"3", "status:WORD, a full e-mail; other text filters this page", "page-local; :user EMAIL or a full e-mail searches all"},
		{"4", "status:WORD, fp:FINGERPRINT; other text filters this page", "page-local; :device FP or fp:FP searches all"},
	} {
		h := fakeHarness(t, newFake(), 120, 30, Options{})
		h.press(tc.tab, "/")
		h.contains(tc.syntax)
		h.press("laptop", "enter")
		h.contains(tc.all)
		if v := h.view(); strings.Contains(v, "plan:") {
			t.Fatalf("tab %s names the license list's plan: filter:\n%s", tc.tab, v)
		}
	}
}

package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"licensectl/store"
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

// billed is the fake with billing: the usage it answers, or err.
type billed struct {
	*fakeData
	u   *store.Usage
	err error
}

func (b *billed) BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error) {
	return b.u, b.err
}

// TestOverviewPulse (docs/tui.md §5.3): the month's runtime requests against
// the tier's limit when billing is readable, and the whole checklist, the
// webhook item included.
func TestOverviewPulse(t *testing.T) {
	usage := &store.Usage{PlanName: "Free", RuntimeRequests: store.UsageCount{Current: 7, Limit: 10_000}}
	hook := &store.Webhook{ID: fixedID(70), URL: "https://hooks.example.com/x", Status: store.WebhookActive}
	for _, tc := range []struct {
		name     string
		billing  bool
		err      error
		webhooks []*store.Webhook
		want     []string
		absent   []string
	}{
		{name: "no billing", want: []string{"· a webhook is registered — n on Webhooks (7)"}, absent: []string{"Runtime requests"}},
		{name: "billing forbidden", billing: true, err: store.Errorf(store.ECodeForbidden, "no billing for developers"),
			want: []string{"Licenses  40"}, absent: []string{"Runtime requests", "✗"}},
		{name: "billing", billing: true, webhooks: []*store.Webhook{hook},
			want: []string{"Runtime requests this month 7/10,000 (tier limit)", "✓ a webhook is registered"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.webhooks = tc.webhooks
			var data Data = f
			if tc.billing {
				data = &billed{fakeData: f, u: usage, err: tc.err}
			}
			h := newHarness(t, data, Options{OrgID: f.org.ID, AppID: f.app.ID}, 100, 30)
			for _, item := range []string{"an app exists (photo-editor)", "a plan exists", "a license is generated",
				"an application secret exists in production", "a webhook is registered", "a license.activated event has been seen"} {
				h.contains(item)
			}
			for _, w := range tc.want {
				h.contains(w)
			}
			for _, a := range tc.absent {
				if strings.Contains(h.view(), a) {
					t.Fatalf("view has %q:\n%s", a, h.view())
				}
			}
		})
	}
}

// TestActivityRateAndGap (docs/tui.md §5.7, §10): the rate counts the
// entries of the last minute by their own times (the backlog shown on
// opening is not a burst), and a burst larger than a page leaves a gap row
// that says how many entries it skipped.
func TestActivityRateAndGap(t *testing.T) {
	// entries makes n entries, newest first, ids from first+n-1 down to
	// first, all at time at.
	entries := func(first, n int, at time.Time) []*store.AuditEntry {
		var out []*store.AuditEntry
		for i := first + n - 1; i >= first; i-- {
			out = append(out, &store.AuditEntry{ID: fixedID(1000 + i), Event: "license.created", Actor: store.Actor{Type: store.ActorAPIKey, ID: fixedID(60)},
				Target: store.Target{Type: "license", ID: fixedID(100)}, CreatedAt: at})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		backlog bool // 97 entries of an hour ago and 3 of the last minute; else an empty log
		burst   int  // entries written after the TUI opened, then one poll
		rate    string
		gap     string // "" for no gap row
	}{
		{"backlog only", true, 0, "3 events/min", ""},
		{"burst within a page", true, 40, "43 events/min", ""},
		{"burst of exactly a page", true, perPage, "103 events/min", ""},
		{"burst larger than a page", true, 150, "153 events/min", "… 50 more (open Audit)"},
		{"burst into an empty log", false, 150, "150 events/min", "… 50 more (open Audit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			start := "0"
			f.audit = []*store.AuditEntry{}
			if tc.backlog {
				f.audit, start = append(entries(97, 3, fixedNow.Add(-20*time.Second)), entries(0, 97, fixedNow.Add(-time.Hour))...), "3"
			}
			h := fakeHarness(t, f, 100, 30, Options{Remote: true})
			h.press("5")
			h.contains("Live activity · " + start + " events/min")
			if tc.burst > 0 {
				f.audit = append(entries(100, tc.burst, fixedNow.Add(-5*time.Second)), f.audit...)
				a := h.m.top().(*tabs).cur().(*activity)
				h.send(tickMsg{screen: a.sid})
			}
			h.contains("Live activity · " + tc.rate)
			if tc.gap != "" {
				h.press(strings.Repeat("j", perPage-1)) // down to the burst's oldest entry
				h.contains(tc.gap)
			} else if strings.Contains(h.view(), "more (open Audit)") {
				t.Fatalf("a gap row without a gap:\n%s", h.view())
			}
		})
	}
}

// outage is the fake, with billing, whose calls named in down fail with
// err while err is set.
type outage struct {
	*billed
	down map[string]bool
	err  error
}

func (o *outage) failing(call string) error {
	if o.down[call] {
		return o.err
	}
	return nil
}

func (o *outage) ListLicenses(ctx context.Context, s store.Scope, lf store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	if err := o.failing("ListLicenses"); err != nil {
		return nil, err
	}
	return o.billed.ListLicenses(ctx, s, lf)
}

func (o *outage) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	if err := o.failing("FindLicense"); err != nil {
		return nil, err
	}
	return o.billed.FindLicense(ctx, s, id)
}

func (o *outage) BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error) {
	if err := o.failing("BillingUsage"); err != nil {
		return nil, err
	}
	return o.billed.BillingUsage(ctx, orgID, at)
}

// TestLoadErrorBody (docs/tui.md §12): every screen whose first load failed
// says the error, when polling retries and the keys, in the same words, and
// r loads it again at once.
func TestLoadErrorBody(t *testing.T) {
	const body = "✗ unavailable: cannot reach the server at http://127.0.0.1:19317  retrying in 2s · r retry now · q quit"
	for _, tc := range []struct {
		name   string
		down   string
		noApp  bool // the org home, where Usage is
		keys   []string
		loaded string
	}{
		{name: "Overview", down: "ListLicenses", loaded: "Getting started"},
		{name: "Licenses", down: "ListLicenses", keys: []string{"2"}, loaded: "40 matching"},
		{name: "License detail", down: "FindLicense", keys: []string{"2", "enter"}, loaded: "validate now?"},
		{name: "Usage", down: "BillingUsage", noApp: true, keys: []string{"4"}, loaded: "runtime requests 7/10,000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			o := &outage{billed: &billed{fakeData: f, u: &store.Usage{PlanName: "Free", RuntimeRequests: store.UsageCount{Current: 7, Limit: 10_000}}},
				down: map[string]bool{tc.down: true}, err: store.Errorf(store.ECodeUnavailable, "cannot reach the server at http://127.0.0.1:19317")}
			opts := Options{Remote: true, OrgID: f.org.ID, AppID: f.app.ID, Where: "http://127.0.0.1:19317"}
			if tc.noApp {
				opts.AppID = ""
			}
			h := newHarness(t, o, opts, 120, 30)
			h.press(tc.keys...)
			h.contains(body)
			o.err = nil
			h.press("r")
			h.contains(tc.loaded)
		})
	}
}

// TestASCIIHasNoEllipsis (docs/tui.md §6): with --ascii, or a locale that is
// not UTF-8, every ellipsis is "...": cut cells, the breadcrumb's key, the
// tab keys in help and the filter's prompt.
func TestASCIIHasNoEllipsis(t *testing.T) {
	f := newFake()
	short := f.licenses[0].Key[:5] + "..." + f.licenses[0].Key[24:]
	for _, tc := range []struct {
		name  string
		w, h  int
		keys  []string
		wants []string
	}{
		{"licenses", 60, 16, []string{"2"}, []string{"1...0"}},
		{"license detail", 100, 30, []string{"2", "enter"}, []string{"Licenses > " + short}},
		{"license detail narrow", 60, 16, []string{"2", "enter"}, []string{"PRODUCTION", "...tl.db"}},
		{"help", 80, 24, []string{"?"}, []string{"1...0"}},
		{"filter", 100, 30, []string{"2", "/"}, []string{"fp:... ;"}},
	} {
		for _, locale := range []string{"ascii", "LANG=C"} {
			t.Run(tc.name+"/"+locale, func(t *testing.T) {
				o := Options{}
				if locale == "ascii" {
					o.ASCII = true
				} else {
					t.Setenv("LC_ALL", "")
					t.Setenv("LC_CTYPE", "")
					t.Setenv("LANG", "C")
				}
				h := fakeHarness(t, newFake(), tc.w, tc.h, o)
				h.press(tc.keys...)
				if v := h.view(); strings.Contains(v, "…") {
					t.Fatalf("an ellipsis is drawn:\n%s", v)
				}
				for _, w := range tc.wants {
					h.contains(w)
				}
			})
		}
	}
}

// TestHeaderKeepsEnvironmentAndKey (docs/tui.md §4, principle 5, and §6): however narrow the
// terminal, the header shows the environment and the key's last four whole
// (and READ-ONLY); the location is elided in its middle, keeping its start
// and its end, and the breadcrumb's other parts are shortened.
func TestHeaderKeepsEnvironmentAndKey(t *testing.T) {
	const url = "http://127.0.0.1:19317"
	for _, size := range [][2]int{{60, 16}, {80, 24}, {100, 30}} {
		for _, tc := range []struct {
			name  string
			o     Options
			keys  []string
			wants []string
		}{
			{"remote overview", Options{Remote: true, Credential: "rnQ4"}, nil, []string{"PRODUCTION", "key …rnQ4", "remote http", "19317"}},
			{"remote license", Options{Remote: true, Credential: "rnQ4"}, []string{"2", "enter"}, []string{"PRODUCTION", "key …rnQ4", "remote http", "19317"}},
			{"remote read-only", Options{Remote: true, Credential: "rnQ4", ReadOnly: true}, []string{"2", "enter"}, []string{"PRODUCTION", "READ-ONLY", "key …rnQ4"}},
			{"local license", Options{}, []string{"2", "enter"}, []string{"PRODUCTION", "local /", ".db"}},
		} {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				h := fakeHarness(t, newFake(), size[0], size[1], tc.o)
				if tc.o.Remote {
					h.m.c.where = url
				}
				h.press(tc.keys...)
				head := strings.Split(h.view(), "\n")[0]
				if width(head) > size[0] {
					t.Fatalf("header %q is wider than %d", head, size[0])
				}
				for _, w := range tc.wants {
					if !strings.Contains(head, w) {
						t.Errorf("header %q lacks %q", head, w)
					}
				}
				if size[0] >= 100 && tc.o.Remote && !tc.o.ReadOnly && !strings.Contains(head, url) {
					t.Errorf("header %q elides the URL at %d columns", head, size[0])
				}
			})
		}
	}
}

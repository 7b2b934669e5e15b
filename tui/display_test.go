package tui

import (
	"context"
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

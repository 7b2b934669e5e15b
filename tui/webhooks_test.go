package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"licensectl/server/api"
	"licensectl/store"
)

// pinging answers test pings as a receiver that is down would.
type pinging struct {
	Data
	pinged []string
}

func (p *pinging) PingWebhook(ctx context.Context, ref store.AppRef, id string) (*api.WebhookTestResult, error) {
	p.pinged = append(p.pinged, id)
	return &api.WebhookTestResult{Success: false, DeliveryID: fixedID(77), Status: store.DeliveryFailed}, nil
}

func TestWebhooksTab(t *testing.T) {
	s := seed(t, 0)
	ctx := context.Background()
	ref := store.AppRef{OrgID: s.orgID, AppID: s.app.ID}
	hook, err := s.db.CreateWebhook(ctx, ref, "https://hooks.example.com/licensectl", []string{"license.*"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.GenerateLicenses(ctx, s.scope(), store.GenerateLicensesInput{PlanID: s.plan.ID, Quantity: 2}); err != nil {
		t.Fatal(err)
	}
	data := &pinging{Data: s.db}
	h := newHarness(t, data, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("7")
	h.contains("[7 Webhooks]")
	h.contains("https://hooks.example.com/licensectl")

	h.press("t")
	h.contains("✗ failed HTTP 0 (no answer)")
	if len(data.pinged) != 1 || data.pinged[0] != hook.ID {
		t.Fatalf("pinged %v, want %s", data.pinged, hook.ID)
	}

	h.press("p")
	h.contains("Disable webhook")
	h.press("enter") // enter never confirms
	if got, _ := s.db.ListWebhooks(ctx, ref); got[0].Status != store.WebhookActive {
		t.Fatal("enter disabled the webhook")
	}
	h.press("y")
	h.contains("✓ Disabled")
	// The ping's outcome stays on the row once the status line moved on.
	row := ""
	for _, line := range strings.Split(h.view(), "\n") {
		if strings.Contains(line, "https://hooks.example.com/licensectl") {
			row = line
			break
		}
	}
	if !strings.Contains(row, "✗ failed HTTP 0 (no answer) · delivery "+tail(fixedID(77))) {
		t.Fatalf("the ping's outcome is not on the row:\n%s", h.view())
	}
	if got, _ := s.db.ListWebhooks(ctx, ref); got[0].Status != store.WebhookDisabled {
		t.Fatalf("status after p y: %s", got[0].Status)
	}
	h.press("u", "y")
	h.contains("✓ Enabled")

	h.press("enter")
	h.contains("Deliveries")
	h.contains("license.created")
	h.contains("2 matching")
	h.press("/", "failed", "enter")
	h.contains("Nothing matches")
	h.press("esc", "r")
	h.contains("✓ Queued again")

	h.press("esc", "X")
	h.contains(`Type "delete"`)
	h.later(time.Second)
	h.press("delete", "enter")
	h.contains("✓ Deleted")
	if got, _ := s.db.ListWebhooks(ctx, ref); len(got) != 0 {
		t.Fatalf("webhooks after X delete: %d", len(got))
	}
}

func TestOrgAuditAndEntryView(t *testing.T) {
	s := seed(t, 0)
	ctx := context.Background()
	if _, _, err := s.db.CreateAPIKey(ctx, s.orgID, "ci"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID}, 120, 30)
	h.press(":", "orgaudit", "enter")
	h.contains("Org audit")
	h.contains("api_key.created")
	h.press("enter")
	h.contains("Audit entry api_key.created")
	h.contains(`"event": "api_key.created"`)
	h.press("esc")
	h.contains("[5 Org audit]")
}

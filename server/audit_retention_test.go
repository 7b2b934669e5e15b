package server_test

import (
	"net/http"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

// TestAuditRetention: entries older than the tier's retention go at the
// next start's sweep, newer ones and other logs' counts stay consistent.
func TestAuditRetention(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	cfg.Signup.Challenge = "off"
	local(&cfg)
	for i := range cfg.Billing.Tiers {
		cfg.Billing.Tiers[i].AuditLogRetentionDays = 7
	}
	s := servertest.Start(t, cfg)
	f := attachRT(t, s)
	rc := newReceiver(t)
	hook := register(t, f, rc, "plan.created")
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Old"}).Want(t, http.StatusCreated)
	rc.next(t, "plan.created")
	eventually(t, "delivered", func() bool { return deliveries(t, f, hook, "?status=delivered").Total == 1 })
	start := s.Clock().Now()
	s.Close()

	// Restart eight days later: the sweep at start removes the old entries.
	s2 := servertest.StartAt(t, cfg, start.Add(8*24*time.Hour))
	f.s = s2
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "New"}).Want(t, http.StatusCreated)
	rc.next(t, "plan.created")
	eventually(t, "the old entries and the old delivery pruned", func() bool {
		p := getAudit(t, f, "")
		d := deliveries(t, f, hook, "")
		return p.Total == 1 && d.Total == 1 && deliveries(t, f, hook, "?status=delivered").Total == 1
	})
	if p := getAudit(t, f, "?event=plan.created"); p.Total != 1 || len(p.Data) != 1 {
		t.Fatalf("plan.created after pruning = %+v", p)
	}
	var org struct {
		Total int `json:"total"`
	}
	s2.As(t, f.org.APIKey, "GET", "/v1/mgmt/audit-logs", nil).Want(t, http.StatusOK).JSON(t, &org)
	if org.Total != 0 {
		t.Fatalf("org log keeps %d old entries", org.Total)
	}
}

type auditPage struct {
	Data  []map[string]any `json:"data"`
	Total int              `json:"total"`
}

func getAudit(t *testing.T, f *rtFix, q string) auditPage {
	t.Helper()
	var p auditPage
	f.mgmt(t, "GET", "/audit-logs"+q, nil).Want(t, http.StatusOK).JSON(t, &p)
	return p
}

package server_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/servertest"
)

// TestWebhookFailureLogged: an endpoint that fails leaves a warn line per
// minute at most, naming the endpoint, the delivery and the answer, and the
// next line says how many failures it left out; a success logs nothing.
func TestWebhookFailureLogged(t *testing.T) {
	t.Parallel()
	buf := &syncBuffer{}
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	local(&cfg)
	// One retry: the delivery is done after the second attempt, so only
	// the test pings below can fail later.
	cfg.Webhooks.RetrySchedule = []time.Duration{time.Second}
	logger := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	f := attachRT(t, servertest.Start(t, cfg, server.WithLogger(logger)))
	rc := newReceiver(t)
	rc.answer = func(int) int { return http.StatusServiceUnavailable }
	hook := register(t, f, rc, "plan.created")

	warns := func() []map[string]any {
		var out []map[string]any
		for _, l := range buf.lines(t) {
			if l["msg"] == "webhook attempt failed" {
				out = append(out, l)
			}
		}
		return out
	}

	// A queued delivery: its first attempt fails and is logged.
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "P"}).Want(t, http.StatusCreated)
	rc.next(t, "plan.created")
	eventually(t, "the failure logged", func() bool { return len(warns()) == 1 })
	w := warns()[0]
	if w["level"] != "WARN" || w["webhook_id"] != hook || w["event"] != "plan.created" || w["status"] != float64(503) ||
		w["attempt"] != float64(1) || w["host"] != rc.srv.Listener.Addr().String() || w["delivery_id"] == "" {
		t.Fatalf("log line = %v", w)
	}

	// Two more failures within the minute (a retry and a test ping) are
	// counted, not logged.
	f.s.Clock().Advance(time.Second)
	rc.next(t, "plan.created")
	eventually(t, "the retry recorded", func() bool {
		p := deliveries(t, f, hook, "?status=failed")
		return p.Total == 1 && p.Data[0].Attempts == 2
	})
	f.mgmt(t, "POST", "/webhooks/"+hook+"/test", nil).Want(t, http.StatusOK)
	if n := len(warns()); n != 1 {
		t.Fatalf("%d lines within a minute, want 1", n)
	}

	// A minute on, the next failure logs again and says what it left out.
	f.s.Clock().Advance(time.Minute)
	f.mgmt(t, "POST", "/webhooks/"+hook+"/test", nil).Want(t, http.StatusOK)
	eventually(t, "a second line", func() bool { return len(warns()) >= 2 })
	if w := warns()[1]; w["not_logged_since_last"] != float64(2) {
		t.Fatalf("second line = %v, want not_logged_since_last 2", w)
	}

	// Success is not a warning.
	rc.answer = func(int) int { return http.StatusOK }
	f.s.Clock().Advance(time.Minute)
	n := len(warns())
	f.mgmt(t, "POST", "/webhooks/"+hook+"/test", nil).Want(t, http.StatusOK)
	if len(warns()) != n {
		t.Fatalf("a delivered ping logged a failure: %v", warns()[n:])
	}
}

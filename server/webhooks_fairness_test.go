package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/store"
)

// TestWebhookTenantFairness: tenant A's four endpoints never answer and
// 2,100 license.created wait for each; they hold at most half of the eight
// workers, a ping to one of them waits within the bounds and then answers
// 409, and tenant B's endpoint hears its event at once. The deliveries list
// shows the timed-out attempts' error and latency.
func TestWebhookTenantFairness(t *testing.T) {
	t.Parallel()
	f := newRT(t, local, func(c *config.Config) {
		c.Webhooks.Timeout = 5 * time.Second
		c.Webhooks.RetrySchedule = []time.Duration{time.Hour}
	})
	g := attachRT(t, f.s)
	var silent []*receiver
	var hooks []string
	for range 4 {
		rc := newReceiver(t)
		rc.block = make(chan struct{})
		silent = append(silent, rc)
		hooks = append(hooks, register(t, f, rc, "license.created"))
	}
	for _, n := range []int{1000, 1000, 100} {
		f.licenses(t, n, planOpts{})
	}
	inflight := func() int {
		n := 0
		for _, rc := range silent {
			n += int(rc.inflight.Load())
		}
		return n
	}
	eventually(t, "A's sends in flight", func() bool { return inflight() == 4 })

	t.Run("ErrConflictPingBeyondTheBound", func(t *testing.T) {
		start := time.Now()
		f.mgmt(t, "POST", "/webhooks/"+hooks[0]+"/test", nil).WantError(t, http.StatusConflict, "conflict")
		if n := inflight(); n > 4 {
			t.Fatalf("tenant A has %d sends in flight, more than half of 8 workers", n)
		}
		t.Logf("ping refused after %v", time.Since(start).Round(time.Millisecond))
	})

	t.Run("OKHealthyTenantNotDelayed", func(t *testing.T) {
		healthy := newReceiver(t)
		register(t, g, healthy, "plan.created")
		start := time.Now()
		g.mgmt(t, "POST", "/plans", map[string]any{"name": "B"}).Want(t, http.StatusCreated)
		healthy.next(t, "plan.created")
		delay := time.Since(start)
		t.Logf("tenant B's delivery arrived %v after its event, with tenant A's 8,400 deliveries waiting", delay.Round(time.Millisecond))
		if delay > 2*time.Second {
			t.Fatalf("tenant B's delivery took %v", delay)
		}
	})

	t.Run("OKTimeoutRecorded", func(t *testing.T) {
		var d struct {
			Data []struct {
				Attempts      int    `json:"attempts"`
				LastError     string `json:"last_error"`
				LastLatencyMS int64  `json:"last_latency_ms"`
			} `json:"data"`
			Total int `json:"total"`
		}
		eventually(t, "a timed-out attempt in the list", func() bool {
			f.mgmt(t, "GET", "/webhooks/"+hooks[1]+"/deliveries?page=21&per_page=100", nil).Want(t, http.StatusOK).JSON(t, &d)
			for _, x := range d.Data {
				if x.Attempts == 1 {
					return true
				}
			}
			return false
		})
		if d.Total != 2100 {
			t.Fatalf("endpoint has %d pending deliveries, want 2100", d.Total)
		}
		for _, x := range d.Data {
			if x.Attempts == 1 && (!strings.Contains(x.LastError, "Timeout") || x.LastLatencyMS < 4000) {
				t.Fatalf("timed-out attempt shows error %q, latency %d ms", x.LastError, x.LastLatencyMS)
			}
		}
		// After the timeout the endpoint has one send in flight, not two.
		time.Sleep(300 * time.Millisecond)
		for i, rc := range silent {
			if n := rc.inflight.Load(); n > 1 {
				t.Fatalf("silent endpoint %d has %d sends in flight after timing out", i, n)
			}
		}
	})
}

// TestWebhookEndpointBounds: webhooks.max_endpoints endpoints per
// application (409 naming the setting beyond) and 50 patterns per endpoint.
func TestWebhookEndpointBounds(t *testing.T) {
	t.Parallel()
	f := newRT(t, local, func(c *config.Config) { c.Webhooks.MaxEndpoints = 2 })
	rc := newReceiver(t)
	for range 2 {
		f.mgmt(t, "POST", "/webhooks", map[string]any{"url": rc.URL(), "events": []string{"plan.created"}}).Want(t, http.StatusCreated)
	}
	t.Run("ErrConflict", func(t *testing.T) {
		r := f.mgmt(t, "POST", "/webhooks", map[string]any{"url": rc.URL(), "events": []string{"plan.created"}})
		r.WantError(t, http.StatusConflict, "conflict")
		if !strings.Contains(string(r.Body), "webhooks.max_endpoints") {
			t.Fatalf("the conflict does not name the setting: %s", r.Body)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		hooks := f.mgmt(t, "GET", "/webhooks", nil).Want(t, http.StatusOK).List(t)
		events := make([]string, store.MaxEventPatterns+1)
		for i := range events {
			events[i] = store.EventPlanCreated
		}
		r := f.mgmt(t, "PATCH", "/webhooks/"+hooks[0]["id"].(string), map[string]any{"events": events})
		r.WantError(t, http.StatusBadRequest, "validation_failed")
		if !strings.Contains(string(r.Body), "events") {
			t.Fatalf("the error does not name events: %s", r.Body)
		}
		f.mgmt(t, "PATCH", "/webhooks/"+hooks[0]["id"].(string), map[string]any{"events": events[:store.MaxEventPatterns]}).Want(t, http.StatusOK)
	})
}

package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"licensectl/store"
)

// webhookMetrics are the dispatcher's: attempts by outcome, and the queue
// read from the store at scrape time.
type webhookMetrics struct {
	attempts *prometheus.CounterVec
}

// watchWebhooks registers the webhook metrics; the queue gauges read the
// outbox on each scrape (a read transaction and one cursor seek).
func (m *metrics) watchWebhooks(out store.Outbox, now store.Clock) {
	m.webhooks.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "licensectl_webhook_deliveries_total",
		Help: "Webhook delivery attempts by outcome: delivered, failed (an answer that is not 2xx), no_answer."}, []string{"outcome"})
	for _, o := range []string{"delivered", "failed", "no_answer"} {
		m.webhooks.attempts.WithLabelValues(o) // exported at 0 before the first attempt
	}
	queue := func() (int, time.Time) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, oldest, err := out.OutboxStats(ctx)
		if err != nil {
			return 0, time.Time{}
		}
		return n, oldest
	}
	m.registry.MustRegister(m.webhooks.attempts,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "licensectl_webhook_queue", Help: "Webhook deliveries pending for active endpoints, and events not yet expanded into deliveries."},
			func() float64 { n, _ := queue(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "licensectl_webhook_oldest_due_seconds", Help: "Age of the oldest due webhook delivery (0 when none is due)."},
			func() float64 {
				_, oldest := queue()
				if oldest.IsZero() || oldest.After(now()) {
					return 0
				}
				return now().Sub(oldest).Seconds()
			}))
}

// webhookAttempt counts one recorded attempt.
func (m *metrics) webhookAttempt(a store.Attempt) {
	if m.webhooks.attempts == nil {
		return
	}
	outcome := "failed"
	switch {
	case a.OK():
		outcome = "delivered"
	case a.Status == 0:
		outcome = "no_answer"
	}
	m.webhooks.attempts.WithLabelValues(outcome).Inc()
}

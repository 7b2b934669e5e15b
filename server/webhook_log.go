package server

import (
	"log/slog"
	"net/url"
	"sync"
	"time"

	"licensectl/store"
)

// webhookFailureEvery is how often one endpoint's failures may reach the
// log: an endpoint that is down fails every retry of every delivery, and a
// line each would bury the rest.
const webhookFailureEvery = time.Minute

// webhookFailureLog writes failed webhook attempts at warn, at most one line
// per endpoint per webhookFailureEvery; the next line says how many were
// left out. Without it a failing endpoint leaves no trace but metrics.
type webhookFailureLog struct {
	logger *slog.Logger
	now    store.Clock

	mu   sync.Mutex
	last map[string]webhookFailureMark // webhook id →
}

type webhookFailureMark struct {
	at      time.Time
	skipped int
}

// maxWebhookFailureMarks bounds the endpoints remembered; past it, marks
// older than the interval are dropped, and all of them if that is not
// enough.
const maxWebhookFailureMarks = 4096

func newWebhookFailureLog(logger *slog.Logger, now store.Clock) *webhookFailureLog {
	return &webhookFailureLog{logger: logger, now: now, last: map[string]webhookFailureMark{}}
}

// attempt logs a again if it failed and its endpoint has not been logged
// within the interval.
func (f *webhookFailureLog) attempt(job *store.DeliveryJob, a store.Attempt) {
	if a.OK() {
		return
	}
	d := job.Delivery
	now := f.now()
	f.mu.Lock()
	m, seen := f.last[d.WebhookID]
	if seen && now.Sub(m.at) < webhookFailureEvery {
		m.skipped++
		f.last[d.WebhookID] = m
		f.mu.Unlock()
		return
	}
	if !seen && len(f.last) >= maxWebhookFailureMarks {
		for id, old := range f.last {
			if now.Sub(old.at) >= webhookFailureEvery {
				delete(f.last, id)
			}
		}
		if len(f.last) >= maxWebhookFailureMarks {
			clear(f.last) // that many endpoints failing in a minute: start over
		}
	}
	f.last[d.WebhookID] = webhookFailureMark{at: now}
	f.mu.Unlock()
	// The host only: a URL's path or query may carry a receiver's token.
	host := ""
	if u, err := url.Parse(job.URL); err == nil {
		host = u.Host
	}
	f.logger.Warn("webhook attempt failed", "webhook_id", d.WebhookID, "delivery_id", d.ID, "event", d.Event,
		"host", host, "status", a.Status, "attempt", d.Attempts+1, "not_logged_since_last", m.skipped)
}

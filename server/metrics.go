package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"licensectl/store"
)

// metrics are the server's Prometheus collectors, on their own registry.
// Every label takes values from a closed set (routes, methods, endpoints,
// error codes and validation reasons), so no client can grow the page.
type metrics struct {
	registry *prometheus.Registry
	webhooks webhookMetrics
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	runtime  *prometheus.CounterVec
	shed     *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "licensectl_http_requests_total", Help: "HTTP requests by method, route and status."}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "licensectl_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}, []string{"method", "route"}),
		runtime: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "licensectl_runtime_calls_total",
			Help: "Runtime API calls by endpoint and outcome: ok, valid, the reason of an invalid session, or the error code."}, []string{"endpoint", "outcome"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "licensectl_requests_shed_total",
			Help: "Requests answered 503 overloaded, unchanged, because their write waited past server.max_queue_wait."}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.latency, m.runtime, m.shed, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// methodLabel is the method as a metrics label: the standard ones by name,
// anything a client made up as "other", so no client can add series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// watchLimiters exposes the refusals of each rate limiter that is on.
func (m *metrics) watchLimiters(named map[string]*atomic.Uint64) {
	for name, l := range named {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "licensectl_rate_limited_total", Help: "Requests refused by a rate limiter (rate_limited; challenge_required past the per-account login bounds), by limiter.",
			ConstLabels: prometheus.Labels{"limiter": name},
		}, func() float64 { return float64(l.Load()) }))
	}
}

// limiters names the refusal counts of the server's rate limiters that are
// on, for the metrics. Those of the shared login limits count this server's
// refusals.
func (s *Server) limiters() map[string]*atomic.Uint64 {
	out := map[string]*atomic.Uint64{}
	local := func(name string, l *limiter) {
		if l != nil {
			out[name] = &l.refused
		}
	}
	shared := func(name string, l *sharedLimiter) {
		if l != nil {
			out[name] = &l.refused
		}
	}
	if s.rt != nil {
		local("runtime_ip", s.rt.ipLimit)
		local("runtime_auth_ip", s.rt.auLimit)
		local("runtime_devices_license", s.rt.dvLimit)
		local("management", s.rt.mgLimit)
		if t := s.rt.logins; t != nil {
			shared("runtime_login", t.pair)
			shared("runtime_login_global", t.global)
		}
	}
	if s.acct != nil {
		local("account_ip", s.acct.perIP)
		if t := s.acct.logins; t != nil {
			shared("dashboard_login", t.pair)
			shared("dashboard_login_global", t.global)
		}
	}
	return out
}

// outcomeKey carries the *string a runtime handler sets to say how a call
// ended when it did not fail (a validation's reason).
type outcomeKey struct{}

// setOutcome records the outcome of a successful runtime call.
func setOutcome(r *http.Request, outcome string) {
	if p, ok := r.Context().Value(outcomeKey{}).(*string); ok {
		*p = outcome
	}
}

// backendCollector reads the backend's Stats at each scrape.
type backendCollector struct {
	backend                                   store.StatsReporter
	size, sessions, commitSize, commitSeconds *prometheus.Desc
}

func newBackendCollector(b store.StatsReporter) *backendCollector {
	return &backendCollector{
		backend:       b,
		size:          prometheus.NewDesc("licensectl_db_size_bytes", "Size of the database file.", nil, nil),
		sessions:      prometheus.NewDesc("licensectl_runtime_sessions", "Runtime sessions on record: live ones, and ended ones until swept (counted at most once a minute).", nil, nil),
		commitSize:    prometheus.NewDesc("licensectl_group_commit_writes", "Runtime writes per shared commit.", nil, nil),
		commitSeconds: prometheus.NewDesc("licensectl_group_commit_duration_seconds", "Time of each shared commit of runtime writes.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *backendCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.sessions
	ch <- c.commitSize
	ch <- c.commitSeconds
}

// Collect implements prometheus.Collector.
func (c *backendCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.backend.Stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.size, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(st.SizeBytes))
	ch <- prometheus.MustNewConstMetric(c.sessions, prometheus.GaugeValue, float64(st.Sessions))
	for _, h := range []struct {
		desc *prometheus.Desc
		h    store.Histogram
	}{{c.commitSize, st.GroupCommitSize}, {c.commitSeconds, st.GroupCommitSeconds}} {
		buckets := make(map[float64]uint64, len(h.h.Bounds))
		for i, b := range h.h.Bounds {
			buckets[b] = h.h.Counts[i]
		}
		ch <- prometheus.MustNewConstHistogram(h.desc, h.h.Count, h.h.Sum, buckets)
	}
}

// validationOutcome is "valid" or the reason a session is not; reasons come
// from the store's closed list.
func validationOutcome(v *store.Validation) string {
	if v.Valid {
		return "valid"
	}
	return v.Reason
}

// server is the HTTP server of metrics.listen: GET /metrics and nothing
// else, so an address kept for scrapers exposes no API.
func (m *metrics) server(logger *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.handler())
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
}

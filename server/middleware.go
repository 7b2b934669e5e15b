package server

import (
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"licensectl/store"
)

// handlerFunc is a handler that returns its error; wrap turns it into an
// http.Handler that writes the error through the one error writer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) wrap(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			writeError(w, r, s.logger, err)
		}
	})
}

// statusRecorder remembers the status code written.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Flush lets streamed responses (backups) reach the client as they are written.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// observe logs each request, counts it in the metrics, recovers panics into a
// 500 without internals, and caps the request body at 1 MiB.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		r.Body = http.MaxBytesReader(rec, r.Body, maxBody)
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeError(rec, r, s.logger, store.Errorf(store.ECodeInternal, "internal error"))
				}
			}
			route := "unmatched"
			if m := mux.CurrentRoute(r); m != nil {
				if t, err := m.GetPathTemplate(); err == nil {
					route = t
				}
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(r.Method, route, strconv.Itoa(rec.status)).Inc()
			s.metrics.latency.WithLabelValues(r.Method, route).Observe(d.Seconds())
			if route != "/healthz" {
				s.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("route", route),
					slog.Int("status", rec.status), slog.Int("bytes", rec.bytes), slog.Duration("duration", d), slog.String("ip", clientIP(r)))
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// clientIP is the connection's address; forwarded headers are not trusted.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// metrics are the server's Prometheus collectors, on their own registry.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "licensectl_http_requests_total", Help: "HTTP requests by method, route and status."}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "licensectl_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}, []string{"method", "route"}),
	}
	reg.MustRegister(m.requests, m.latency, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

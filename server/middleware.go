package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

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

// statusRecorder remembers the status code written, and the error code
// when the one error writer answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	code   string
}

// errorCoder is a writer that keeps the error code of an answer for the
// request log and metrics: statusRecorder, and what wraps it.
type errorCoder interface{ setErrorCode(code string) }

func (r *statusRecorder) setErrorCode(code string) { r.code = code }

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

var nosniff = []string{"nosniff"} // shared: net/http only reads header values

// observe logs each request, counts it in the metrics, recovers panics into a
// 500 without internals, caps the request body at 1 MiB and marks every
// answer nosniff.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r.Header.Get("X-Request-Id"))
		w.Header()["X-Request-Id"] = []string{id}
		// No answer is to be read as anything but its declared type: a
		// JSON error echoing input must never be sniffed into HTML.
		w.Header()["X-Content-Type-Options"] = nosniff
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		if len(s.trusted) > 0 {
			ctx = context.WithValue(ctx, clientIPKey{}, s.forwardedClient(r))
		}
		r = r.WithContext(ctx)
		rec := &statusRecorder{ResponseWriter: w}
		r.Body = http.MaxBytesReader(rec, r.Body, maxBody)
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("panic", "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
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
			method := methodLabel(r.Method)
			s.metrics.requests.WithLabelValues(method, route, strconv.Itoa(rec.status)).Inc()
			s.metrics.latency.WithLabelValues(method, route).Observe(d.Seconds())
			if rec.code == store.ECodeOverloaded {
				s.metrics.shed.WithLabelValues(route).Inc()
			}
			// The level is checked first so that a disabled one costs
			// nothing: the attributes would otherwise be built (and escape)
			// per request.
			level := requestLevel(s.cfg.Log.Requests, r.Method, route, rec.status)
			if s.logger.Enabled(r.Context(), level) {
				s.logger.LogAttrs(r.Context(), level, "request", slog.String("request_id", id), slog.String("method", r.Method),
					slog.String("route", route), slog.Int("status", rec.status), slog.String("code", rec.code), slog.Int("bytes", rec.bytes),
					slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("ip", clientIP(r)))
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// requestLevel is the level of a request's log line under log.requests:
// the requests the setting selects log at info, the rest at debug. Probes
// and scrapes come every few seconds and say nothing: always debug. A TUI
// refreshing every few seconds only reads, so the default (writes) keeps it
// out of the log while every change and every failure stays in.
func requestLevel(mode, method, route string, status int) slog.Level {
	if route == "/healthz" || route == "/readyz" || route == "/metrics" {
		return slog.LevelDebug
	}
	failed := status >= 400
	var selected bool
	switch mode {
	case "all":
		selected = true
	case "errors":
		selected = failed
	case "none":
		selected = false
	default: // writes
		selected = failed || (method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions)
	}
	if selected {
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

type clientIPKey struct{}

// clientIP is the client's address: the one observe resolved through
// trusted proxies, else the connection's.
func clientIP(r *http.Request) string {
	if ip, ok := r.Context().Value(clientIPKey{}).(string); ok {
		return ip
	}
	return remoteHost(r)
}

// remoteHost is the connection's address without its port.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// parseTrusted turns server.trusted_proxies (CIDRs or single addresses,
// already validated by config) into prefixes.
func parseTrusted(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range list {
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("server.trusted_proxies: %q is not a CIDR or an IP address", v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

func (s *Server) trustedProxy(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedClient returns the client address of a request that arrived
// through a trusted proxy: the right-most X-Forwarded-For entry that is not
// itself a trusted proxy. Entries to the left of it were written by the
// client and prove nothing; a malformed entry stops the walk at the
// connection's address.
func (s *Server) forwardedClient(r *http.Request) string {
	host := remoteHost(r)
	a, err := netip.ParseAddr(host)
	if err != nil || !s.trustedProxy(a) {
		return host
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	client := host
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return client
		}
		client = hop.Unmap().String()
		if !s.trustedProxy(hop) {
			return client
		}
	}
	return client
}

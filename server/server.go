// Package server is licensectl's HTTP layer: routing, authentication,
// decoding and validation of requests, and the one mapping from domain errors
// to status codes and bodies. The domain and its persistence live in store.
package server

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"licensectl/config"
	"licensectl/server/webhook"
	"licensectl/store"
)

// Server is the HTTP server with the store it owns. Build it with New, start
// it with Open, stop it with Close; tests and `licensectl serve` do the same.
type Server struct {
	cfg           config.Config
	db            store.Backend
	logger        *slog.Logger
	now           store.Clock
	signers       answerSigners    // one per environment key (signing.go)
	acct          *accountServices // built by initServices (account.go)
	operatorToken string
	router        *mux.Router
	trusted       []netip.Prefix // server.trusted_proxies
	metrics       *metrics
	rt            *runtimeAPI    // runtime API state (runtime.go)
	mailq         *mailQueue     // account mail, sent outside requests (mailqueue.go)
	partner       *partnerSignIn // nil unless partner.issuer is set (partner.go)
	version       string
	guard         *webhook.Guard      // webhook URL rules (webhooks.go)
	dispatcher    *webhook.Dispatcher // works the outbox from Open to Close

	ln          *onceCloseListener
	drain       *drainer
	tls         *tls.Config // nil: plain HTTP
	certs       *certFiles  // certificate files re-read by ReloadTLS
	http        *http.Server
	metricsHTTP *http.Server // metrics.listen: /metrics on its own address
	metricsLn   net.Listener
	closeMu     sync.Mutex
	closed      bool
	workers     []namedWorker // background work, started by Open (workers.go)
	bg          []func()      // stops background workers
}

// Option adjusts a Server built by New.
type Option func(*Server)

// WithClock replaces the wall clock, so tests can move time.
func WithClock(c store.Clock) Option { return func(s *Server) { s.now = c } }

// WithVersion names the release in the user-agent of webhook deliveries.
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithLogger replaces the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

// New builds the server on db, which it owns from then on: Close closes it
// (and so does New when it fails).
// It does not listen yet.
func New(cfg config.Config, db store.Backend, opts ...Option) (*Server, error) {
	s := &Server{cfg: cfg, db: db, now: store.SystemClock, logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	for _, o := range opts {
		o(s)
	}
	var err error
	if err = s.initOperatorToken(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	if s.trusted, err = parseTrusted(cfg.Server.TrustedProxies); err != nil {
		db.Close()
		return nil, err
	}
	if s.tls, err = s.tlsConfig(cfg); err != nil {
		db.Close()
		return nil, err
	}
	s.metrics = newMetrics(prometheus.NewRegistry())
	if err := s.initServices(); err != nil {
		db.Close()
		return nil, err
	}
	s.initWebhooks()
	s.rt = s.newRuntime()
	s.router = s.routes()
	s.workers = s.listWorkers()
	s.metrics.watchLimiters(s.limiters())
	s.metrics.registry.MustRegister(newBackendCollector(s.db))
	s.metrics.watchWebhooks(s.db, s.now)
	return s, nil
}

// operatorPrefix starts every operator token licensectl makes; a
// credential without it is not looked up in the store.
const operatorPrefix = "op_"

// initOperatorToken settles the operator token (docs/design.md §12). A
// configured token (admin.operator_token) is used as it is. Otherwise its
// hash lives in the store: the server that finds none makes a token, stores
// its hash and writes the plaintext to <data-dir>/operator.token (0600); of
// servers starting together on one empty database, one wins and the others
// write nothing. A token file from before the hash moved into the store is
// adopted, so an upgrade keeps the operator's token.
func (s *Server) initOperatorToken(ctx context.Context) error {
	if s.cfg.Admin.OperatorToken != "" {
		s.operatorToken = s.cfg.Admin.OperatorToken
		return nil
	}
	path := filepath.Join(s.cfg.DataDir, "operator.token")
	file, err := readOperatorToken(path)
	if err != nil {
		return err
	}
	stored, err := s.db.OperatorTokenHash(ctx)
	if err != nil {
		return fmt.Errorf("read the operator token's hash: %w", err)
	}
	if stored != "" {
		if file != "" && subtle.ConstantTimeCompare([]byte(store.HashSecret(file)), []byte(stored)) == 1 {
			s.operatorToken = file
		}
		return nil
	}
	tok, fresh := file, file == ""
	if fresh {
		tok = store.NewSecret(operatorPrefix)
	}
	won, err := s.db.SwapOperatorTokenHash(ctx, "", store.HashSecret(tok))
	if err != nil {
		return fmt.Errorf("store the operator token's hash: %w", err)
	}
	if !won {
		// Another server initialised the store a moment earlier: its token
		// is the one, written to its own data directory.
		return nil
	}
	s.operatorToken = tok
	if !fresh {
		return nil
	}
	if err := WriteOperatorToken(path, tok); err != nil {
		return err
	}
	// Its path, never its value: logs travel further than the data directory.
	s.logger.Info("wrote a new operator token", "path", path)
	return nil
}

// readOperatorToken returns the token in the file at path, or "" when there
// is none.
func readOperatorToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read operator token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteOperatorToken writes tok to the file at path (0600), replacing it
// whole: a reader never sees half a token.
func WriteOperatorToken(path, tok string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return fmt.Errorf("write operator token: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write operator token: %w", err)
	}
	return nil
}

// isOperator reports whether tok is the operator token: the configured one,
// compared in constant time, or one whose hash is the store's. The hash is
// read on every call, never kept, so that a rotation holds at once on every
// server of the database (docs/design.md §12).
func (s *Server) isOperator(ctx context.Context, tok string) (bool, error) {
	if tok == "" {
		return false, nil
	}
	if s.cfg.Admin.OperatorToken != "" {
		return subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Admin.OperatorToken)) == 1, nil
	}
	if !strings.HasPrefix(tok, operatorPrefix) {
		return false, nil
	}
	stored, err := s.db.OperatorTokenHash(ctx)
	if err != nil || stored == "" {
		return false, err
	}
	return subtle.ConstantTimeCompare([]byte(store.HashSecret(tok)), []byte(stored)) == 1, nil
}

// Open starts listening on the configured address; a bind error is returned
// at once. Requests are served in the background.
func (s *Server) Open() error {
	ln, err := net.Listen("tcp", s.cfg.Server.Listen)
	if err != nil {
		return err
	}
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls)
	}
	if l := s.cfg.Metrics.Listen; s.cfg.Metrics.Enabled && l != "" {
		if s.metricsLn, err = net.Listen("tcp", l); err != nil {
			ln.Close()
			return fmt.Errorf("metrics.listen: %w", err)
		}
		s.metricsHTTP = s.metrics.server(s.logger)
		go func() {
			if err := s.metricsHTTP.Serve(s.metricsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.logger.Error("serve metrics", "err", err)
			}
		}()
	}
	s.ln = &onceCloseListener{Listener: ln}
	s.drain = newDrainer()
	s.startWorkers()
	s.http = &http.Server{
		Handler:           s.router,
		ConnState:         s.drain.connState,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute, // backups stream for a while
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	go func() {
		// Close closes the listener before Shutdown: the Accept error that
		// ends Serve then is the stop, not a failure.
		if err := s.http.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.logger.Error("serve", "err", err)
		}
	}()
	return nil
}

// URL is the base address the server listens on.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	if s.tls != nil {
		return "https://" + s.ln.Addr().String()
	}
	return "http://" + s.ln.Addr().String()
}

// MetricsURL is the base address of the metrics listener (metrics.listen),
// or "" when /metrics is served on the API listener.
func (s *Server) MetricsURL() string {
	if s.metricsLn == nil {
		return ""
	}
	return "http://" + s.metricsLn.Addr().String()
}

// Handler is the server's HTTP handler, for in-process tests and benchmarks.
func (s *Server) Handler() http.Handler { return s.router }

// OperatorToken is the token that authorizes /v1/admin, as this server
// knows it: the configured one, the one it made, or the one of its token file
// when that matches the store; "" when another server made it or it was
// rotated since.
func (s *Server) OperatorToken() string { return s.operatorToken }

// Close stops accepting requests, waits for those in flight (up to the
// configured shutdown timeout), stops background work and closes the store.
func (s *Server) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Server.ShutdownTimeout)
		defer cancel()
		// Stop accepting, let requests already in the sockets of idle
		// connections be read (drain.go), then drain what is in flight.
		if err := s.ln.Close(); err != nil {
			errs = append(errs, err)
		}
		deadline, _ := ctx.Deadline()
		if d := time.Now().Add(maxDrainWait); d.Before(deadline) {
			deadline = d
		}
		s.drain.wait(deadline)
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if s.metricsHTTP != nil {
		errs = append(errs, s.metricsHTTP.Close())
	}
	for i := len(s.bg) - 1; i >= 0; i-- {
		s.bg[i]()
	}
	errs = append(errs, s.db.Close())
	return errors.Join(errs...)
}

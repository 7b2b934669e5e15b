package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"licensectl/config"
	"licensectl/server"
)

func newServeCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP server (management and runtime API)",
		Example: "  licensectl serve\n" +
			"  licensectl serve --listen 0.0.0.0:8080 --data-dir /var/lib/licensectl",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			logger := newLogger(cfg.Log, e)
			gc := applyGCPercent(cfg.Server.GCPercent, e)
			db, _, err := openLocal(cfg, openOpts{create: true})
			if err != nil {
				return err
			}
			for _, m := range db.Migrated() {
				logger.Info("database schema migrated", "migration", m)
			}
			srv, err := server.New(cfg, db, server.WithLogger(logger), server.WithVersion(buildVersion().Version))
			if err != nil {
				return err
			}
			// Signals are caught before the server says it listens: a SIGHUP
			// or SIGTERM sent as soon as it does must not find the default
			// action (which ends the process) still in place.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			if err := srv.Open(); err != nil {
				srv.Close()
				return err
			}
			logger.Info("listening", "url", srv.URL(), "data_dir", cfg.DataDir, "gc_percent", gc)
			for {
				select {
				case <-hup:
					// A renewed certificate is picked up without dropping a
					// connection; a broken one is refused and the old stays.
					if err := srv.ReloadTLS(); err != nil {
						logger.Error("reload TLS certificate", "err", err)
					} else if cfg.Server.TLS.CertFile != "" {
						logger.Info("reloaded TLS certificate", "cert_file", cfg.Server.TLS.CertFile)
					}
				case <-ctx.Done():
					logger.Info("shutting down")
					return srv.Close()
				}
			}
		},
	}
}

// newLogger logs text on a terminal and JSON otherwise, unless configured.
func newLogger(c config.Log, e *env) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(c.Format)
	if format == "auto" || format == "" {
		format = "json"
		if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(e.stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(e.stderr, opts))
}

// applyGCPercent sets the garbage collector's target from server.gc_percent
// unless GOGC is in the environment (the operator's explicit choice wins) or
// the setting is 0. It returns the target in force.
func applyGCPercent(percent int, e *env) int {
	if v, ok := e.getenv("GOGC"); (ok && v != "") || percent <= 0 {
		cur := debug.SetGCPercent(100) // reading the target means setting it: put it back
		debug.SetGCPercent(cur)
		return cur
	}
	debug.SetGCPercent(percent)
	return percent
}

package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"licensectl/config"
	"licensectl/server"
)

func newServeCmd(e *env) *cobra.Command {
	var initDir, dev bool
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP server (management and runtime API)",
		Long: "serve runs the HTTP server on the store of storage.driver: the file\n" +
			"<data-dir>/licensectl.db (bolt), or the PostgreSQL database of\n" +
			"storage.postgres.url that several servers share (postgres). The whole\n" +
			"configuration is checked before anything is written. A missing data dir\n" +
			"is created (0700) only when it is the default ./data or with --init: a\n" +
			"mistyped --data-dir is refused. On bolt it then gets a new database and\n" +
			"operator token; on postgres it keeps only this server's files (the\n" +
			"operator token file, written by the server that initialises the database).\n\n" +
			"--dev is the laptop mode: plain-http and private webhook targets allowed,\n" +
			"signup challenge off, mail written to <data-dir>/mail/, the operator token\n" +
			"printed. It listens on loopback only; never use it in production.",
		Example: "  licensectl serve\n" +
			"  licensectl serve --dev\n" +
			"  licensectl serve --init --listen 0.0.0.0:8080 --data-dir /var/lib/licensectl",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			if dev {
				if err := devMode(&cfg); err != nil {
					return err
				}
			}
			logger := newLogger(cfg.Log, e)
			for _, name := range config.UnknownEnv(e.environ(), envServer, envAPIKey, envTUILog, envPublicKey) {
				logger.Warn("unknown environment variable ignored: no configuration key has this name (see licensectl.yaml)", "name", name)
			}
			if err := checkTLSFiles(cfg.Server.TLS); err != nil {
				return err
			}
			if err := prepareDataDir(cfg.DataDir, initDir, cfg.Storage.Driver); err != nil {
				return err
			}
			gc := applyGCPercent(cfg.Server.GCPercent, e)
			db, where, err := openLocal(cfg, openOpts{create: true})
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
			logger.Info("listening", "url", srv.URL(), "data_dir", cfg.DataDir, "store", where, "gc_percent", gc)
			if cfg.Storage.Driver == config.DriverBolt {
				// A command that finds the file locked names this address
				// (openBolt); the note goes with the lock.
				if err := writeServeURL(cfg.DataDir, srv.URL()); err != nil {
					logger.Warn("could not note the server's address in the data dir", "err", err)
				}
				defer os.Remove(filepath.Join(cfg.DataDir, serveURLFile))
			}
			if dev {
				devBanner(e.stderr, cfg, srv.URL(), srv.OperatorToken())
			}
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
	c.Flags().BoolVar(&initDir, "init", false, "create a missing --data-dir (on bolt with a new database and operator token)")
	c.Flags().BoolVar(&dev, "dev", false, "laptop mode: http and private webhook targets, no signup challenge, file mail, token printed; loopback only")
	return c
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

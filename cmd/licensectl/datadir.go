package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"licensectl/config"
)

// Variables read outside config that serve does not warn about.
const (
	envTUILog    = "LICENSECTL_TUI_LOG"    // the TUI's debug log (tui.Run)
	envPublicKey = "LICENSECTL_PUBLIC_KEY" // examples/runtime-client
)

// prepareDataDir makes sure serve may write into dir (docs/design.md §2, §11).
// A missing dir is created with mode 0700 only when it is the default ./data
// or init is set: any other missing path is most likely a typo, and starting
// on it would start an empty server with a new operator token. A database
// file of 0 bytes (a copy that never happened, a full disk) is refused
// rather than formatted as a new database. On PostgreSQL the records are in
// the database and the directory holds only this server's files, so the
// refusal says so rather than promise a new database.
func prepareDataDir(dir string, init bool, driver string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !init && filepath.Clean(dir) != filepath.Clean(config.Default().DataDir) {
			what := "with a new database"
			if driver == config.DriverPostgres {
				what = "empty: the records stay in the storage.postgres.url database, and the directory keeps this server's files (the operator token file, when this server is the one that initialises the database)"
			}
			return fmt.Errorf("data dir %s does not exist: check --data-dir (data_dir, %s), or pass --init to create it %s", dir, config.EnvName("data_dir"), what)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create data dir: %w", err)
		}
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("data dir %s is not a directory", dir)
	}
	path := filepath.Join(dir, "licensectl.db")
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		return fmt.Errorf("%s is empty (0 bytes), not a database: restore a backup with `licensectl restore FILE`, or remove the file to start a new database", path)
	}
	return nil
}

// checkTLSFiles loads the configured certificate and key once, so that a
// wrong path is refused before anything is written; the server loads them
// again for itself.
func checkTLSFiles(t config.TLS) error {
	if t.CertFile == "" {
		return nil
	}
	if _, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile); err != nil {
		return fmt.Errorf("server.tls.cert_file/key_file: %w", err)
	}
	return nil
}

// devMode turns cfg into the laptop mode of `serve --dev` (docs/design.md §2):
// webhooks to plain-http and private targets (a receiver on localhost),
// no signup challenge, mail as files. It refuses a listen address other
// than loopback, the metrics listener's included, as these settings must
// never face a network.
func devMode(cfg *config.Config) error {
	listens := [][2]string{{"server.listen", cfg.Server.Listen}}
	if cfg.Metrics.Listen != "" { // else metrics share the API listener
		listens = append(listens, [2]string{"metrics.listen", cfg.Metrics.Listen})
	}
	for _, l := range listens {
		host, _, err := net.SplitHostPort(l[1])
		if err != nil || !config.LoopbackHost(host) {
			return fmt.Errorf("--dev listens on loopback only (127.0.0.1, ::1 or localhost), not %s %q: it is never for production", l[0], l[1])
		}
	}
	cfg.Webhooks.AllowHTTP = true
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Signup.Challenge = "off"
	cfg.Mail.Driver = "file"
	return nil
}

// devBanner tells whoever runs `serve --dev` what is relaxed and how to
// reach the server with the CLI, operator token included.
func devBanner(w io.Writer, cfg config.Config, url, token string) {
	line := strings.Repeat("=", 72)
	fmt.Fprintf(w, "%s\n"+
		"  DEVELOPMENT MODE (serve --dev): NEVER USE IN PRODUCTION\n"+
		"  webhooks may target plain http and private addresses; signup has no\n"+
		"  challenge; mail is written to %s\n\n"+
		"  server:         %s\n"+
		"  operator token: %s\n\n"+
		"  In another terminal:\n"+
		"    export %s=%s %s=%s\n"+
		"    licensectl org create Acme --owner-email you@example.com\n"+
		"    licensectl --org acme app create \"Photo Editor\"\n"+
		"%s\n",
		line, filepath.Join(cfg.DataDir, "mail"), url, token, envServer, url, envAPIKey, token, line)
}

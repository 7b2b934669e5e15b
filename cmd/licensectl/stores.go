package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"licensectl/config"
	"licensectl/offline"
	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/password"
	"licensectl/store/postgres"
)

// localStore is the store the configuration names (storage.driver), as
// serve and local mode open it: the bbolt file or a PostgreSQL database
// (docs/design.md §12). What only the file does (a streamed backup) is
// asked of it with a type assertion on store.FileBackup.
type localStore interface {
	store.Backend
	// ConfigureBilling replaces the billing policy the store applies.
	ConfigureBilling(p store.BillingPolicy) error
	// Migrated lists the schema migrations applied at open.
	Migrated() []string
}

var (
	_ localStore = (*bolt.DB)(nil)
	_ localStore = (*postgres.DB)(nil)
)

// openLocal opens the store of cfg and returns it with a description of
// where it is, for messages (the file's path, or the database's address
// without its password).
func openLocal(cfg config.Config, opts openOpts) (localStore, string, error) {
	hasher := password.NewHasher(password.Options{Concurrency: cfg.Auth.HashConcurrency, MaxWait: cfg.Auth.HashWait})
	var (
		db    localStore
		where string
		err   error
	)
	if cfg.Storage.Driver == config.DriverPostgres {
		where = describePostgres(cfg.Storage.Postgres.URL)
		db, err = openPostgres(cfg, hasher)
	} else {
		db, where, err = openBolt(cfg, opts, hasher)
	}
	if err != nil {
		return nil, where, err
	}
	if err := db.ConfigureBilling(cfg.Billing.Policy()); err != nil {
		db.Close()
		return nil, where, err
	}
	return db, where, nil
}

// storePolicies are the knobs of the domain cfg sets, the same for either
// store.
func storePolicies(cfg config.Config, hasher *password.Hasher) store.Policies {
	return store.Policies{Hasher: hasher, Passwords: password.CheckPolicy, MaxQueueWait: cfg.Server.MaxQueueWait,
		MachineFiles: offline.Sign, MaxWebhookEndpoints: cfg.Webhooks.MaxEndpoints}
}

// openBolt opens <data-dir>/licensectl.db. Unless opts.create, a missing
// file is an error rather than a new empty store (a mistyped --data-dir). A
// file held by a running server fails after the 2 s lock timeout with advice.
func openBolt(cfg config.Config, opts openOpts, hasher *password.Hasher) (*bolt.DB, string, error) {
	path := filepath.Join(cfg.DataDir, "licensectl.db")
	if opts.create {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, path, fmt.Errorf("create data dir: %w", err)
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, fmt.Errorf("no database at %s: pass --data-dir (or --server for a running server), or create one with `licensectl org create NAME`", path)
	}
	if err := refuseEmptyDatabase(path); err != nil {
		return nil, path, err
	}
	db, err := bolt.Open(path, bolt.Options{ReadOnly: opts.readOnly, LockTimeout: opts.lockTimeout, Policies: storePolicies(cfg, hasher)})
	if errors.Is(err, bolt.ErrLocked) {
		return nil, path, fmt.Errorf("%s is locked by another process, most likely a running `licensectl serve`.\n"+
			"Stop it, or administer it remotely: --server %s --api-key <token from %s>",
			path, servingURL(cfg), filepath.Join(cfg.DataDir, "operator.token"))
	}
	return db, path, err
}

// serveURLFile is where `serve` notes, in its data dir, the address it
// listens on, while it holds the database.
const serveURLFile = "serve.url"

func writeServeURL(dataDir, url string) error {
	return os.WriteFile(filepath.Join(dataDir, serveURLFile), []byte(url+"\n"), 0o600)
}

// servingURL is the address of the server holding cfg's data dir: what it
// noted, else this configuration's listen address (the server may have
// been started with another).
func servingURL(cfg config.Config) string {
	if b, err := os.ReadFile(filepath.Join(cfg.DataDir, serveURLFile)); err == nil {
		if u := strings.TrimSpace(string(b)); strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			return u
		}
	}
	return "http://" + cfg.Server.Listen
}

// openPostgres connects to storage.postgres.url and brings its schema to
// this binary's version. Several servers and local commands share the
// database, so nothing here waits for another to stop.
func openPostgres(cfg config.Config, hasher *password.Hasher) (*postgres.DB, error) {
	pg := cfg.Storage.Postgres
	db, err := postgres.Open(context.Background(), postgres.Options{URL: pg.URL, MaxConns: pg.MaxConns, ConnectTimeout: pg.ConnectTimeout,
		Policies: storePolicies(cfg, hasher)})
	if err != nil {
		return nil, fmt.Errorf("open the PostgreSQL store (storage.postgres.url, %s): %w", describePostgres(pg.URL), err)
	}
	return db, nil
}

// describePostgres names the database of a libpq URL or DSN without its
// password, for messages and logs.
func describePostgres(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		var kept []string
		for _, f := range strings.Fields(raw) {
			if k, _, _ := strings.Cut(f, "="); k == "host" || k == "port" || k == "dbname" || k == "user" {
				kept = append(kept, f)
			}
		}
		return "PostgreSQL " + strings.Join(kept, " ")
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	q.Del("password")
	u.RawQuery = q.Encode()
	return u.String()
}

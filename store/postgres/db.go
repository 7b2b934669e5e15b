// Package postgres implements the store interfaces on PostgreSQL
// (docs/design.md §12): several servers share one database, and every
// invariant that bbolt's single writer gives for free is held by the
// database itself (row locks, unique indexes, conditional updates). The SQL
// is written by hand; no pgx type leaves this package.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"licensectl/store"
	"licensectl/store/password"
)

// Options configure a DB.
type Options struct {
	// URL is the database to open: a libpq URL or key=value DSN
	// (storage.postgres.url).
	URL string
	// MaxConns bounds the pool (storage.postgres.max_conns); 0 means 4 ×
	// GOMAXPROCS.
	MaxConns int
	// ConnectTimeout bounds each connection attempt
	// (storage.postgres.connect_timeout); 0 means 5 s.
	ConnectTimeout time.Duration
	// Policies are the knobs of the domain, the same for either store.
	Policies store.Policies
}

// DB is the PostgreSQL store. It implements store.Backend.
type DB struct {
	// Service is the orchestration of the changes, over the database's
	// transactions (orchestration.go).
	store.Service
	pool *pgxpool.Pool
	// sessionCount is Stats' cached count of sessions (stats.go).
	sessionCount store.SessionCount
	// commits times the commits of write transactions (stats.go).
	commits *store.CommitStats
	// enqueued is signalled when this server committed outbox events or
	// another server's NOTIFY arrived (listen.go).
	enqueued chan struct{}
	// stop ends the background listener at Close.
	stop context.CancelFunc
	done chan struct{}
	// migrated lists the migrations applied at open.
	migrated []string
}

// Config turns o into a pool configuration.
func (o Options) Config() (*pgxpool.Config, error) {
	if o.URL == "" {
		return nil, errors.New("storage.postgres.url is empty: set it to the database to use (postgres://user:password@host/db)")
	}
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		return nil, fmt.Errorf("storage.postgres.url: %s", maskedParseError(err))
	}
	cfg.MaxConns = int32(o.MaxConns)
	if o.MaxConns <= 0 {
		cfg.MaxConns = int32(4 * runtime.GOMAXPROCS(0))
	}
	cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	if o.ConnectTimeout <= 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	return cfg, nil
}

// maskedParseError keeps a URL's password out of the error that names it.
func maskedParseError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if at := strings.Index(msg[i:], "@"); at > 0 {
			return "cannot parse the URL (check its form: postgres://user:password@host:port/db)"
		}
	}
	return msg
}

// Open connects to the database of o.URL, brings its schema to this
// binary's version under an advisory lock (so that N servers starting
// together migrate once) and starts listening for other servers' outbox
// events.
func Open(ctx context.Context, o Options) (*DB, error) {
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	db := &DB{pool: pool, enqueued: make(chan struct{}, 1), done: make(chan struct{}), commits: store.NewCommitStats()}
	db.Service = store.NewService(password.WithCommonList(o.Policies), storage{db})
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	lctx, stop := context.WithCancel(context.Background())
	db.stop = stop
	go db.listen(lctx)
	return db, nil
}

// StoredSchemaVersion is the schema version of the database.
func (db *DB) StoredSchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// Close stops the listener and closes the pool.
func (db *DB) Close() error {
	if db.stop != nil {
		db.stop()
		<-db.done
	}
	db.pool.Close()
	return nil
}

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.pool.QueryRow(ctx, `SELECT 1`).Scan(&one)
}

// MetaSecret returns the value kept under name, creating it with gen on
// first use. Servers racing on an empty database agree: the first insert
// wins and the others read it.
func (db *DB) MetaSecret(name string, gen func() ([]byte, error)) ([]byte, error) {
	if err := store.CheckStorable("name", name); err != nil {
		return nil, err
	}
	ctx := context.Background()
	key := "secret:" + name
	var out []byte
	err := db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE name = $1`, key).Scan(&out)
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	v, err := gen()
	if err != nil {
		return nil, err
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, key, v); err != nil {
		return nil, err
	}
	err = db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE name = $1`, key).Scan(&out)
	return out, err
}

// Prepare migrates the database of url and closes it: what a test
// template or an operator's `licensectl migrate` needs without serving.
func Prepare(ctx context.Context, url string) error {
	db, err := Open(ctx, Options{URL: url})
	if err != nil {
		return err
	}
	return db.Close()
}

// Package postgres implements the store interfaces on PostgreSQL
// (docs/design.md §12): several servers share one database, and every
// invariant that bbolt's single writer gives for free is held by the
// database itself (row locks, unique indexes, conditional updates). The SQL
// is written by hand; no pgx type leaves this package.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strconv"
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

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered SQL file of migrations/.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists migrations/ in order. A file is named NNNN_what.sql;
// its number is the schema version it brings the database to.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: the name must start with its number", e.Name())
		}
		raw, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(e.Name(), ".sql"), sql: string(raw)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

// SchemaVersion is the schema version this binary's migrations lead to.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// ErrSchemaTooNew is returned by Open for a database migrated by a newer
// binary.
type ErrSchemaTooNew struct{ Database, Binary int }

func (e *ErrSchemaTooNew) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this binary's %d: upgrade licensectl", e.Database, e.Binary)
}

// migrateLock is the first half of the advisory lock key under which
// servers starting together migrate one at a time ("lic" in ASCII); the
// second half is the schema's, so that stores in two schemas of one
// database migrate independently.
const migrateLock = 0x6c6963

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

// migrate applies the migrations the database lacks, in one transaction
// under the migration lock.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return db.migrateTo(ctx, ms)
}

// migrateTo applies the migrations of ms the database lacks.
func (db *DB) migrateTo(ctx context.Context, ms []migration) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, int32(migrateLock)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return err
	}
	if binary := ms[len(ms)-1].version; current > binary {
		return &ErrSchemaTooNew{Database: current, Binary: binary}
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			if breaksConstraint(err) {
				// The data breaks a rule the migration adds: name the
				// rows, not the SQLSTATE of the first one.
				tx.Rollback(ctx)
				if derr := db.diagnoseConstraints(ctx, ms, current, m); derr != nil {
					return derr
				}
			}
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return err
		}
		db.migrated = append(db.migrated, m.name)
	}
	return tx.Commit(ctx)
}

// Migrated lists the migrations Open applied.
func (db *DB) Migrated() []string { return db.migrated }

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

package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

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

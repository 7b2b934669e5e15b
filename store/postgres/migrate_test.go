package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"licensectl/store/postgres/pgtest"
)

// TestMigrations: servers starting together on an empty database migrate
// it once, under the advisory lock; a database migrated by a newer binary
// is refused in one line (docs/design.md §12).
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	const servers = 6
	dbs := make([]*DB, servers)
	errs := make([]error, servers)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = Open(ctx, Options{URL: u})
		}()
	}
	wg.Wait()
	migrated := 0
	for i, db := range dbs {
		if errs[i] != nil {
			t.Fatalf("server %d: %v", i, errs[i])
		}
		defer db.Close()
		if len(db.Migrated()) > 0 {
			migrated++
		}
	}
	if migrated != 1 {
		t.Fatalf("%d of %d servers starting together migrated, want exactly 1", migrated, servers)
	}
	var rows, version int
	if err := dbs[0].pool.QueryRow(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	ms, _ := migrations()
	if rows != len(ms) || version != SchemaVersion() {
		t.Fatalf("schema_migrations holds %d rows up to %d; want %d up to %d", rows, version, len(ms), SchemaVersion())
	}

	if _, err := dbs[0].pool.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, 'from a newer binary')`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, Options{URL: u})
	var tooNew *ErrSchemaTooNew
	if !errors.As(err, &tooNew) || tooNew.Database != SchemaVersion()+1 || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a newer schema: %v; want ErrSchemaTooNew in one line", err)
	}
}

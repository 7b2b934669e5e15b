package postgres

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"licensectl/store"
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

// TestMigrationRefusesBrokenRows: the migration that states the store's
// rules to PostgreSQL (foreign keys, checks) refuses a database whose rows
// break them, names each rule with the rows that break it, and changes
// nothing; once the rows are fixed it runs, and PostgreSQL itself then
// refuses such rows.
func TestMigrationRefusesBrokenRows(t *testing.T) {
	ctx := context.Background()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	// The rules are stated by the constraints migration; later ones
	// only add to what it holds.
	at := slices.IndexFunc(ms, func(m migration) bool { return strings.HasSuffix(m.name, "_constraints") })
	if at < 1 {
		t.Fatalf("no constraints migration after the first among %v", ms)
	}
	constraints, before := ms[at], ms[at-1]
	ms = ms[:at+1]
	const (
		org     = "01900000-0000-7000-8000-000000000001"
		app     = "01900000-0000-7000-8000-000000000002"
		env     = "01900000-0000-7000-8000-000000000003"
		plan    = "01900000-0000-7000-8000-000000000004"
		lic     = "01900000-0000-7000-8000-000000000005"
		nowhere = "01900000-0000-7000-8000-0000000000ff"
	)
	base := []string{
		`INSERT INTO orgs (id, slug, doc) VALUES ('` + org + `', 'acme', '{}')`,
		`INSERT INTO apps (id, org_id, slug, status, doc) VALUES ('` + app + `', '` + org + `', 'app', 'active', '{}')`,
		`INSERT INTO app_envs (id, app_id, name, public_key) VALUES ('` + env + `', '` + app + `', 'production', 'pk')`,
		`INSERT INTO plans (id, app_id, doc) VALUES ('` + plan + `', '` + app + `', '{}')`,
		`INSERT INTO licenses (id, org_id, app_id, env_id, key, plan_id, status, doc) VALUES ('` + lic + `', '` + org + `', '` + app + `', '` + env + `', 'K', '` + plan + `', 'active', '{}')`,
	}
	for _, tc := range []struct {
		name    string
		corrupt []string
		fix     []string
		want    []string // in the error: table, rule, row key
	}{
		{
			name:    "ErrBindingOfNoDevice",
			corrupt: []string{`INSERT INTO license_devices (license_id, device_id, bound_at) VALUES ('` + lic + `', '` + nowhere + `', now())`},
			fix:     []string{`DELETE FROM license_devices`},
			want:    []string{"license_devices", "license_devices_device_id_fkey", "device_id names no row of devices", "license_id=" + lic + ", device_id=" + nowhere},
		},
		{
			name:    "ErrLicenseOfNoEnvironment",
			corrupt: []string{`UPDATE licenses SET env_id = '` + nowhere + `'`},
			fix:     []string{`UPDATE licenses SET env_id = '` + env + `'`},
			want:    []string{"licenses_env_id_fkey", "env_id names no row of app_envs", "id=" + lic + " (env_id=" + nowhere + ")"},
		},
		{
			name:    "ErrUnknownStatusAndNegativeCount",
			corrupt: []string{`UPDATE licenses SET status = 'lost', devices_count = -1`},
			fix:     []string{`UPDATE licenses SET status = 'active', devices_count = 0`},
			want:    []string{"licenses_status_check", "(status=lost)", "licenses_devices_count_check", "(devices_count=-1)", "revoked"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := pgxpool.New(ctx, pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			if err := (&DB{pool: pool}).migrateTo(ctx, ms[:len(ms)-1]); err != nil {
				t.Fatal(err)
			}
			for _, q := range append(slices.Clone(base), tc.corrupt...) {
				if _, err := pool.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db := &DB{pool: pool}
			err = db.migrateTo(ctx, ms)
			var refused *ErrMigrationRefused
			if !errors.As(err, &refused) || refused.Migration != constraints.name {
				t.Fatalf("got %v, want the migration refused", err)
			}
			t.Logf("the refusal reads:\n%v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "SQLSTATE") {
				t.Errorf("the error is PostgreSQL's, not the store's: %v", err)
			}
			// Nothing changed: the schema's version, its constraints and the rows.
			var version, rules, licenses int
			if err := pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&version); err != nil {
				t.Fatal(err)
			}
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
				WHERE t.relnamespace = current_schema()::regnamespace AND c.contype IN ('f', 'c')`).Scan(&rules); err != nil {
				t.Fatal(err)
			}
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM licenses`).Scan(&licenses); err != nil {
				t.Fatal(err)
			}
			if version != before.version || rules != 0 || licenses != 1 {
				t.Fatalf("after the refusal: version %d, %d constraints, %d licenses; want %d, 0, 1", version, rules, licenses, before.version)
			}
			for _, q := range tc.fix {
				if _, err := pool.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := db.migrateTo(ctx, ms); err != nil {
				t.Fatalf("after fixing the rows: %v", err)
			}
			// PostgreSQL now holds the rule itself.
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			// A check refuses the statement, a (deferred) foreign key the commit.
			for _, q := range tc.corrupt {
				if _, err := tx.Exec(ctx, q); breaksConstraint(err) {
					return
				} else if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := tx.Commit(ctx); !breaksConstraint(err) {
				t.Fatalf("committing %v after the migration: %v; want a constraint's refusal", tc.corrupt, err)
			}
		})
	}
}

// TestConstraintValuesAreTheStores: the value sets the schema's checks
// admit are package store's, so a status added to the store cannot be
// refused by PostgreSQL (nor one removed still admitted).
func TestConstraintValuesAreTheStores(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{URL: pgtest.URL(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		constraint string
		want       []string
	}{
		{"licenses_status_check", store.LicenseStatus.Listed()},
		{"end_users_status_check", store.UserStatus.Listed()},
		{"devices_status_check", store.DeviceStatus.Listed()},
		{"apps_status_check", store.AppStatus.Listed()},
		{"app_envs_name_check", []string{store.EnvProduction, store.EnvDevelopment}},
		{"webhooks_status_check", []string{store.WebhookActive, store.WebhookDisabled}},
		{"webhook_deliveries_status_check", []string{store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed}},
		{"billing_transactions_status_check", []string{store.TransactionPending, store.TransactionPaid, store.TransactionExpired}},
		{"members_role_check", []string{store.RoleOwner, store.RoleAdmin, store.RoleDeveloper, store.RoleViewer, ""}},
		{"mail_tokens_purpose_check", []string{store.TokenVerifyEmail, store.TokenResetPassword, store.TokenPortalSignIn, store.TokenPortalSession}},
	} {
		t.Run(tc.constraint, func(t *testing.T) {
			var def string
			if err := db.pool.QueryRow(ctx, `SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
				WHERE c.conname = $1 AND t.relnamespace = current_schema()::regnamespace AND c.convalidated`, tc.constraint).Scan(&def); err != nil {
				t.Fatalf("%s: %v", tc.constraint, err)
			}
			var got []string
			for _, m := range regexp.MustCompile(`'([^']*)'::text`).FindAllStringSubmatch(def, -1) {
				got = append(got, m[1])
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Fatalf("%s admits %q; the store's values are %q (%s)", tc.constraint, got, want, def)
			}
		})
	}
}

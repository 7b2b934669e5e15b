package servertest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"licensectl/offline"
	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/password"
	"licensectl/store/postgres"
	"licensectl/store/postgres/pgtest"
	"licensectl/store/storetest"
)

// Store is a test server's store: what the server uses, the fixtures tests
// seed through, and the billing policy a test runs under.
type Store interface {
	store.Backend
	storetest.Fixtures
	// ConfigureBilling replaces the billing policy the store applies.
	ConfigureBilling(p store.BillingPolicy) error
}

// StoreOptions are what a test server gives its store.
type StoreOptions struct {
	// Clock is the store's time; nil means the wall clock.
	Clock store.Clock
	// Hasher hashes passwords; nil leaves password calls failing.
	Hasher *password.Hasher
	// Billing is the policy the store applies from the start; without tiers
	// the store keeps its own default (no limits).
	Billing store.BillingPolicy
	// MaxQueueWait bounds a write's wait for the writer (server.max_queue_wait).
	MaxQueueWait time.Duration
	// MaxWebhookEndpoints bounds an application's endpoints (webhooks.max_endpoints).
	MaxWebhookEndpoints int
}

// StoreOpener opens the store kept in the data directory dir, creating it
// on first use; a restarted server opens the same one again.
type StoreOpener func(dir string, o StoreOptions) (Store, error)

// StoreEnv names the environment variable that picks the store every test
// server (and every script's seeding) runs on; unset means bolt.
const StoreEnv = "LICENSECTL_TEST_STORE"

// stores are the stores tests can run on, by name.
var stores = map[string]StoreOpener{"bolt": OpenBolt, "postgres": OpenPostgres}

// OpenStore opens the store of dir with the opener $LICENSECTL_TEST_STORE
// names.
func OpenStore(dir string, o StoreOptions) (Store, error) {
	name := os.Getenv(StoreEnv)
	if name == "" {
		name = "bolt"
	}
	open, ok := stores[name]
	if !ok {
		var known []string
		for k := range stores {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("%s=%q: no such test store (known: %s)", StoreEnv, name, strings.Join(known, ", "))
	}
	return open(dir, o)
}

// startBilling gives a newly opened store the policy of its options, or
// leaves the store's default (no limits) when it names no tiers; the store
// is closed when the policy is refused.
func startBilling(db interface {
	ConfigureBilling(p store.BillingPolicy) error
	Close() error
}, p store.BillingPolicy) error {
	if len(p.Tiers) == 0 {
		return nil
	}
	if err := db.ConfigureBilling(p); err != nil {
		db.Close()
		return err
	}
	return nil
}

// policies are the knobs of the domain a test store opens with, the same
// for either store: the server's password policy and machine-file signer.
func (o StoreOptions) policies() store.Policies {
	p := store.Policies{Clock: o.Clock, Passwords: password.CheckPolicy, MaxQueueWait: o.MaxQueueWait,
		MaxWebhookEndpoints: o.MaxWebhookEndpoints, MachineFiles: offline.Sign}
	if o.Hasher != nil {
		// A nil *password.Hasher in the interface would not read as nil.
		p.Hasher = o.Hasher
	}
	return p
}

// boltStore is a bbolt file with its fixtures.
type boltStore struct {
	*bolt.DB
	*bolt.Fixtures
}

// OpenBolt opens the bbolt file of dir with the password policy the server
// uses. Tests of what is bbolt's own (the CLI's local mode, which opens the
// file itself) use it directly; the others go through OpenStore.
func OpenBolt(dir string, o StoreOptions) (Store, error) {
	db, err := bolt.Open(filepath.Join(dir, "licensectl.db"), bolt.Options{Policies: o.policies()})
	if err != nil {
		return nil, err
	}
	if err := startBilling(db, o.Billing); err != nil {
		return nil, err
	}
	return boltStore{DB: db, Fixtures: bolt.FixturesOf(db)}, nil
}

// postgresURLFile keeps, in a test's data directory, the URL of the
// database its store is in, so that a server restarted on that directory
// opens the same database.
const postgresURLFile = "postgres.url"

// PostgresURL returns the database of the data directory dir: the one a
// previous call made for it, or a new, empty one (pgtest.NewDatabase, on
// $LICENSECTL_TEST_POSTGRES_URL's server or a throw-away cluster). The
// database lives until pgtest.Stop, so that restarts find it.
func PostgresURL(dir string) (string, error) {
	path := filepath.Join(dir, postgresURLFile)
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	u, _, err := pgtest.NewDatabase(context.Background())
	if err != nil {
		return "", fmt.Errorf("%s=postgres: %w", StoreEnv, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return u, os.WriteFile(path, []byte(u+"\n"), 0o600)
}

// OpenPostgres opens the PostgreSQL database of the data directory dir
// (PostgresURL) with the password policy the server uses.
func OpenPostgres(dir string, o StoreOptions) (Store, error) {
	u, err := PostgresURL(dir)
	if err != nil {
		return nil, err
	}
	return OpenPostgresURL(u, o)
}

// OpenPostgresURL opens the PostgreSQL database at u as a test store: the
// store of a data directory, or one a test gave a `licensectl` process.
func OpenPostgresURL(u string, o StoreOptions) (Store, error) {
	db, err := postgres.Open(context.Background(), postgres.Options{URL: u, Policies: o.policies()})
	if err != nil {
		return nil, err
	}
	if err := startBilling(db, o.Billing); err != nil {
		return nil, err
	}
	return db, nil
}

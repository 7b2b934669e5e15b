package postgres

import (
	"context"
	"testing"
	"time"

	"licensectl/offline"
	"licensectl/store"
	"licensectl/store/password"
	"licensectl/store/postgres/pgtest"
	"licensectl/store/storetest"
)

var (
	_ store.Backend      = (*DB)(nil)
	_ storetest.Fixtures = (*DB)(nil)
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

// fakeHasher keeps passwords readable and fast in tests.
type fakeHasher struct{}

func (fakeHasher) Hash(_ context.Context, plain string) (string, error) { return "h:" + plain, nil }
func (fakeHasher) Verify(_ context.Context, plain, enc string) (bool, error) {
	return enc == "h:"+plain, nil
}

// openTest opens a fresh database with o (URL filled in) for one test.
func openTest(t testing.TB, o Options) *DB {
	t.Helper()
	o.URL = pgtest.URL(t)
	return openOn(t, o)
}

// openOn opens the database o.URL names, closed when the test ends.
func openOn(t testing.TB, o Options) *DB {
	t.Helper()
	if o.Policies.Hasher == nil {
		o.Policies.Hasher = fakeHasher{}
	}
	db, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// twoServers opens two stores on one fresh database, as two servers would.
func twoServers(t testing.TB, o Options) [2]*DB {
	t.Helper()
	o.URL = pgtest.URL(t)
	return [2]*DB{openOn(t, o), openOn(t, o)}
}

// TestConformance runs the conformance suite on PostgreSQL, with the
// password policy the server uses and a clock only the suite moves: the
// store.Admin parts, then those of the rest of store.Backend.
func TestConformance(t *testing.T) {
	open := func(t *testing.T, billing store.BillingPolicy) storetest.Harness {
		clock := storetest.NewClock(time.Now())
		db := openTest(t, Options{Policies: store.Policies{Clock: clock.Now, Passwords: password.CheckPolicy, MachineFiles: offline.Sign}})
		if err := db.ConfigureBilling(billing); err != nil {
			t.Fatal(err)
		}
		return storetest.Harness{Admin: db, Backend: db, Clock: clock, Fixtures: db}
	}
	storetest.Run(t, open)
	storetest.RunBackend(t, open)
}

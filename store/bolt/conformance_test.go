package bolt

import (
	"path/filepath"
	"testing"
	"time"

	"licensectl/offline"
	"licensectl/store"
	"licensectl/store/password"
	"licensectl/store/storetest"
)

var _ storetest.Fixtures = (*Fixtures)(nil)

// TestConformance runs the conformance suite on a bbolt file, with the
// password policy the server uses and a clock only the suite moves: the
// store.Admin parts, then those of the rest of store.Backend.
func TestConformance(t *testing.T) {
	open := func(t *testing.T, billing store.BillingPolicy) storetest.Harness {
		clock := storetest.NewClock(time.Now())
		db, err := Open(filepath.Join(t.TempDir(), "licensectl.db"), Options{Policies: store.Policies{Clock: clock.Now, Hasher: fakeHasher{}, Passwords: password.CheckPolicy, MachineFiles: offline.Sign}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.ConfigureBilling(billing); err != nil {
			t.Fatal(err)
		}
		return storetest.Harness{Admin: db, Backend: db, Clock: clock, Fixtures: FixturesOf(db)}
	}
	storetest.Run(t, open)
	storetest.RunBackend(t, open)
}

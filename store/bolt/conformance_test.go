package bolt

import (
	"path/filepath"
	"testing"

	"licensectl/store"
	"licensectl/store/password"
	"licensectl/store/storetest"
)

// TestConformance runs the store.Admin conformance suite on a bbolt file,
// with the password policy the server uses.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, billing store.BillingPolicy) storetest.Harness {
		db, err := Open(filepath.Join(t.TempDir(), "licensectl.db"), Options{Hasher: fakeHasher{}, Policy: password.CheckPolicy})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.ConfigureBilling(billing); err != nil {
			t.Fatal(err)
		}
		return storetest.Harness{Admin: db, Backend: db}
	})
}

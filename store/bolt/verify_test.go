package bolt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// VerifyRecords decodes every record and names the first that fails;
// CompactInto copies what is in use into a file that verifies as well.
func TestVerifyRecordsAndCompact(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(filepath.Join(dir, "licensectl.db"), Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	org, err := db.CreateOrganization(t.Context(), store.CreateOrganizationInput{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.VerifyRecords(t.Context()); err != nil {
		t.Fatalf("OK: %v", err)
	}

	copyPath := filepath.Join(dir, "copy.db")
	n, err := db.CompactInto(copyPath)
	if fi, serr := os.Stat(copyPath); err != nil || serr != nil || fi.Size() != n {
		t.Fatalf("CompactInto = %d, %v (%v)", n, err, serr)
	}
	cp, err := Open(copyPath, Options{ReadOnly: true, Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.VerifyRecords(t.Context()); err != nil {
		t.Fatalf("copy: %v", err)
	}
	if o, err := cp.FindOrganization(t.Context(), org.ID); err != nil || o.Name != "Acme" {
		t.Fatalf("copy lost the organization: %v %v", o, err)
	}
	cp.Close()

	k := idb(org.ID)
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		raw := append([]byte{}, tx.Bucket(bOrgs).Get(k)...)
		return tx.Bucket(bOrgs).Put(k, append(raw, 0xff))
	}); err != nil {
		t.Fatal(err)
	}
	err = db.VerifyRecords(t.Context())
	if want := fmt.Sprintf("decode orgs/%x", k); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "garbled record") {
		t.Fatalf("ErrGarbled: %v, want %q", err, want)
	}
}

// An outbox event waiting for its expansion is a record restore checks too.
func TestVerifyRecordsOutbox(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "licensectl.db"), Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := store.NewID()
	if err := db.update(t.Context(), func(t *txn) error {
		return t.put(bOutbox, id, &outboxEvent{ID: id, OrgID: store.NewID(), Event: store.EventLicenseCreated, Body: []byte(`{}`)})
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.VerifyRecords(t.Context()); err != nil {
		t.Fatalf("OK: %v", err)
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bOutbox).Put(idb(id), []byte{0xff, 0x00}) }); err != nil {
		t.Fatal(err)
	}
	if err := db.VerifyRecords(t.Context()); err == nil || !strings.Contains(err.Error(), "outbox_events") {
		t.Fatalf("garbled outbox event: %v", err)
	}
}

// What restore does with an old backup: a read-only handle cannot read its
// records, the compacted copy migrated read-write verifies whole.
func TestVerifyRecordsOldBackup(t *testing.T) {
	path, _ := loadV1(t)
	src, err := Open(path, Options{ReadOnly: true, Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.VerifyRecords(t.Context()); err == nil || !strings.Contains(err.Error(), "older than this binary") {
		t.Fatalf("read-only v1: %v", err)
	}
	staged := filepath.Join(t.TempDir(), "staged.db")
	if _, err := src.CompactInto(staged); err != nil {
		t.Fatal(err)
	}
	db, err := Open(staged, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.VerifyRecords(t.Context()); err != nil {
		t.Fatalf("migrated copy: %v", err)
	}
}

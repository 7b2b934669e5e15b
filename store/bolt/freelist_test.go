package bolt

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"licensectl/store"
)

// storedFreelist reads the freelist page id of the newer of the file's two
// meta pages: bbolt's page header is 16 bytes, and the meta after it holds
// magic, version, page size and flags (4 bytes each), the root bucket (16),
// then the freelist page id and, after the high-water page id, the txid.
// ^0 means no freelist is stored and every open rebuilds it.
func storedFreelist(t *testing.T, path string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	pageSize := int(le.Uint32(raw[16+8:]))
	var freelist, txid uint64
	for _, at := range []int{0, pageSize} {
		meta := raw[at+16:]
		if id := le.Uint64(meta[48:]); id >= txid {
			txid, freelist = id, le.Uint64(meta[32:])
		}
	}
	return freelist
}

// TestOpenStoresTheFreelist checks that every commit writes the freelist,
// so that Open reads it instead of walking every page of the file: at a
// million licenses the walk took seconds (BenchmarkOpenAndPage).
func TestOpenStoresTheFreelist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateOrganization(t.Context(), store.CreateOrganizationInput{Name: "Org"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if id := storedFreelist(t, path); id == ^uint64(0) || id < 2 {
		t.Fatalf("stored freelist page = %#x, want a page of the file", id)
	}
}

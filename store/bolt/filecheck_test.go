package bolt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"licensectl/store"
)

// Issue 9 #10: a truncated file is refused in one line instead of SIGBUS.
func TestOpenTruncatedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "licensectl.db")
	db, err := Open(path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateOrganization(t.Context(), store.CreateOrganizationInput{Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt grows the file ahead of use: what matters is the pages in use.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := readMeta(f, 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	used := int(m.pgid) * int(m.pageSize)
	for _, tt := range []struct {
		name string
		keep int
		want string
	}{
		{"ErrDamaged/HalfMeta", 50, "no valid meta page"},
		{"ErrDamaged/MetaPagesOnly", 2 * int(m.pageSize), "cut short"},
		{"ErrDamaged/Half", used / 2, "cut short"},
		{"ErrDamaged/LastPageMissing", used - int(m.pageSize), "cut short"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name[len("ErrDamaged/"):]+".db")
			if err := os.WriteFile(p, whole[:tt.keep], 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(p, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
			var d *ErrDamaged
			if !errors.As(err, &d) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "licensectl restore") {
				t.Fatalf("Open(%d of %d bytes) = %v", tt.keep, len(whole), err)
			}
		})
	}
	t.Run("ErrDamaged/NotADatabase", func(t *testing.T) {
		p := filepath.Join(dir, "text.db")
		if err := os.WriteFile(p, []byte(strings.Repeat("not a database\n", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(p, Options{Policies: store.Policies{Hasher: fakeHasher{}}}); err == nil || !strings.Contains(err.Error(), "not a database file") {
			t.Fatalf("Open(text) = %v", err)
		}
	})
	t.Run("OKPagesInUse", func(t *testing.T) {
		p := filepath.Join(dir, "used.db")
		if err := os.WriteFile(p, whole[:used], 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := Open(p, Options{ReadOnly: true, Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	})
	t.Run("OKWhole", func(t *testing.T) {
		db, err := Open(path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	})
}

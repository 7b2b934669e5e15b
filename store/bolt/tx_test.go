package bolt

import (
	"context"
	"errors"
	bbolt "go.etcd.io/bbolt"
	"path/filepath"
	"testing"

	"licensectl/store"
)

// MustOpen opens a fresh database in a temp dir, closed when the test ends.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(filepath.Join(tb.TempDir(), "test.db"), Options{})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestIndexPageAndCount(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	prefixes := [][]byte{{0x01, 0x00}, {0x01, 0xff}, {0xff, 0xff}, {0x02, 0x00}}
	want := map[string][]string{}
	err := db.update(ctx, func(tx *txn) error {
		for _, p := range prefixes {
			for i := 0; i < 5; i++ {
				id := store.NewID()
				want[string(p)] = append([]string{id}, want[string(p)]...) // newest first
				if err := tx.index(bLicEnv, p, id); err != nil {
					return err
				}
			}
			// Indexing twice counts once.
			if err := tx.index(bLicEnv, p, want[string(p)][0]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		prefix        []byte
		offset, limit int
		want          []string
	}{
		{"first page", []byte{0x01, 0x00}, 0, 2, nil},
		{"middle", []byte{0x01, 0x00}, 2, 2, nil},
		{"past end", []byte{0x01, 0x00}, 5, 2, nil},
		{"ff prefix", []byte{0xff, 0xff}, 0, 10, nil},
		{"01ff prefix", []byte{0x01, 0xff}, 1, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := want[string(tt.prefix)]
			var exp []string
			for i := tt.offset; i < len(all) && len(exp) < tt.limit; i++ {
				exp = append(exp, all[i])
			}
			_ = db.view(ctx, func(tx *txn) error {
				got := tx.page(bLicEnv, tt.prefix, tt.offset, tt.limit)
				if len(got) != len(exp) {
					t.Fatalf("page = %v, want %v", got, exp)
				}
				for i := range got {
					if got[i] != exp[i] {
						t.Fatalf("page[%d] = %s, want %s", i, got[i], exp[i])
					}
				}
				if n := tx.count(bLicEnv, tt.prefix); n != 5 {
					t.Fatalf("count = %d, want 5", n)
				}
				return nil
			})
		})
	}
	// Prefixes of one index have one length (ids) or end in 0x00 (strings),
	// so no prefix is a prefix of another's keys.
	err = db.update(ctx, func(tx *txn) error {
		for _, id := range want[string([]byte{0x02, 0x00})] {
			if err := tx.unindex(bLicEnv, []byte{0x02, 0x00}, id); err != nil {
				return err
			}
		}
		if n := tx.count(bLicEnv, []byte{0x02, 0x00}); n != 0 {
			t.Fatalf("count after unindex = %d", n)
		}
		return tx.dropAll(bLicEnv, []byte{0xff, 0xff})
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = db.view(ctx, func(tx *txn) error {
		if got := tx.all(bLicEnv, []byte{0xff, 0xff}); len(got) != 0 {
			t.Fatalf("after dropAll: %v", got)
		}
		if n := tx.count(bLicEnv, []byte{0xff, 0xff}); n != 0 {
			t.Fatalf("count after dropAll = %d", n)
		}
		if n := tx.count(bLicEnv, []byte{0x01, 0x00}); n != 5 {
			t.Fatalf("unrelated count changed: %d", n)
		}
		return nil
	})
}

func TestLicenseKeyNormalize(t *testing.T) {
	k := store.NewLicenseKey()
	tests := []struct{ in, want string }{
		{k, k},
		{" " + k + " ", k},
		{"abcde-fghij-kmnpq-rstvw-xyz01", "ABCDE-FGH1J-KMNPQ-RSTVW-XYZ01"},
		{"oooooIIIIILLLLL0000011111", "00000-11111-11111-00000-11111"},
		{"ABCDE FGHJK MNPQR STVWX YZ012", "ABCDE-FGHJK-MNPQR-STVWX-YZ012"},
		{"ABCDE-FGHJK-MNPQR-STVWX-YZ01", ""},  // too short
		{"ABCDE-FGHJK-MNPQR-STVWX-YZ01U", ""}, // U is not Crockford
		{"ABCDE-FGHJK-MNPQR-STVWX-YZ01é", ""}, // not ASCII
	}
	for _, tt := range tests {
		if got := store.NormalizeLicenseKey(tt.in); got != tt.want {
			t.Errorf("NormalizeLicenseKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Open(path, Options{LockTimeout: 100_000_000}); err != ErrLocked {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
}

func TestSchemaVersionNewerRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.bolt.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(SchemaVersion+1)) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(path, Options{})
	var tooNew *ErrSchemaTooNew
	if !errors.As(err, &tooNew) || tooNew.File != SchemaVersion+1 || tooNew.Binary != SchemaVersion {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
	}
}

package bolt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDamagedFile: a file cut short or not a database is refused in one
// line naming the cause and the remedy, instead of bbolt dying of SIGBUS
// on a page past the end of the file.
func TestOpenDamagedFile(t *testing.T) {
	fresh := func(t *testing.T) (string, int64) {
		path := filepath.Join(t.TempDir(), "licensectl.db")
		db, err := Open(path, Options{Hasher: fakeHasher{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return path, st.Size()
	}
	for _, c := range []struct {
		name, want string
		damage     func(t *testing.T, path string, size int64)
	}{
		{"ErrTruncated", "is truncated", func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, int64(os.Getpagesize())*3); err != nil {
				t.Fatal(err)
			}
		}},
		{"ErrTruncatedToMeta", "is truncated", func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, int64(os.Getpagesize())); err != nil {
				t.Fatal(err)
			}
		}},
		{"ErrNotADatabase", "not a licensectl database", func(t *testing.T, path string, size int64) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"ErrShortGarbage", "not a licensectl database", func(t *testing.T, path string, size int64) {
			if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, size := fresh(t)
			c.damage(t, path, size)
			db, err := Open(path, Options{Hasher: fakeHasher{}})
			if err == nil {
				db.Close()
				t.Fatal("damaged file opened")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "restore a backup") || strings.Contains(msg, "\n") {
				t.Fatalf("error = %q, want one line with %q and the remedy", msg, c.want)
			}
		})
	}
	t.Run("OKEmptyFile", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "licensectl.db")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := Open(path, Options{Hasher: fakeHasher{}})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	})
	t.Run("OKIntact", func(t *testing.T) {
		path, _ := fresh(t)
		db, err := Open(path, Options{Hasher: fakeHasher{}})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	})
}

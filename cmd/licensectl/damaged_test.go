package main

import (
	"context"
	binenc "encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/postgres/pgtest"
)

// Issue 9 #10: a truncated data file is one line of advice, not SIGBUS.
func TestDamagedDataFile(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	path := filepath.Join(c.dir, "data", "licensectl.db")
	if err := os.Truncate(path, 8192); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"org", "list"}, {"serve", "--listen", "127.0.0.1:0"}} {
		r := c.run(args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "licensectl restore") {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
}

// garbleLeaves overwrites the element headers of leaf pages of the bbolt
// file at path with 0xff, as a disk that returns garbage would: every leaf
// past the first pages (the meta pages and the root bucket's leaf), or only
// the last one. The pages stay where the meta page says, so only reading
// them finds it.
func garbleLeaves(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binenc.LittleEndian.Uint32(b[16+8:]))
	var leaves []int
	for off := 4 * pageSize; off+pageSize <= len(b); off += pageSize {
		flags, count := binenc.LittleEndian.Uint16(b[off+8:]), binenc.LittleEndian.Uint16(b[off+10:])
		const leafPage = 0x02
		if flags == leafPage && count > 0 {
			leaves = append(leaves, off)
		}
	}
	if len(leaves) == 0 {
		t.Fatal("the file has no leaf page to garble")
	}
	for _, off := range leaves {
		count := int(binenc.LittleEndian.Uint16(b[off+10:]))
		for i := off + 16; i < off+16+count*16 && i < off+pageSize; i++ {
			b[i] = 0xff
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// garbleUnopenedLeaf garbles one leaf that opening the file does not read
// and the copy's walk of every record does, the last such one. Which
// leaves Open reads depends on the layout of the seeded records, so it is
// tried rather than assumed.
func garbleUnopenedLeaf(t *testing.T, path string) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binenc.LittleEndian.Uint32(orig[16+8:]))
	for off := (len(orig)/pageSize - 1) * pageSize; off >= 4*pageSize; off -= pageSize {
		flags, count := binenc.LittleEndian.Uint16(orig[off+8:]), binenc.LittleEndian.Uint16(orig[off+10:])
		const leafPage = 0x02
		if flags != leafPage || count == 0 {
			continue
		}
		b := slices.Clone(orig)
		for i := off + 16; i < off+16+int(count)*16 && i < off+pageSize; i++ {
			b[i] = 0xff
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if db, err := bolt.Open(path, bolt.Options{ReadOnly: true}); err == nil {
			_, walkErr := db.ExportRecords(context.Background(), func(store.CopyRecord) error { return nil })
			db.Close()
			if walkErr != nil {
				return
			}
		}
	}
	t.Fatal("no leaf of the file is read by the copy's walk alone (every one is read by opening it, or by neither)")
}

// A garbled leaf in the source of store copy is one line naming the file
// and what to do, not a Go trace: whether opening the file reads it (every
// leaf garbled; the CLI and serve then answer the same) or only the copy's
// walk does (the last one).
func TestStoreCopyDamagedSource(t *testing.T) {
	for _, c := range []struct {
		name     string
		lastOnly bool
	}{{"EveryLeaf", false}, {"LastLeaf", true}} {
		t.Run(c.name, func(t *testing.T) {
			url := pgtest.URL(t)
			cl := newLocal(t)
			seedDataDir(t, filepath.Join(cl.dir, "data"))
			path := filepath.Join(cl.dir, "data", "licensectl.db")
			if c.lastOnly {
				garbleUnopenedLeaf(t, path)
			} else {
				garbleLeaves(t, path)
			}
			cmds := [][]string{{"store", "copy", "--to", url}}
			if !c.lastOnly {
				// Opening reads the garbled pages: the CLI and serve say the same.
				cmds = append(cmds, []string{"org", "list"}, []string{"serve", "--listen", "127.0.0.1:0"})
			}
			for _, args := range cmds {
				r := cl.run(args...)
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if r.code != 1 || len(lines) != 1 || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "licensectl restore") {
					t.Fatalf("%v on a garbled file: exit %d, stderr:\n%s", args, r.code, r.stderr)
				}
				if r.stdout != "" {
					t.Fatalf("%v on a garbled file printed %q", args, r.stdout)
				}
			}
		})
	}
}

// A database file of 0 bytes is refused in one line by every command that
// opens it, as serve refuses it, and stays 0 bytes: none formats it as a
// new database.
func TestEmptyDataFile(t *testing.T) {
	c := newLocal(t)
	path := filepath.Join(c.dir, "data", "licensectl.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"org", "list"},
		{"org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t)},
		{"app", "list", "--org", "acme"},
		{"store", "copy", "--to", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"},
		{"serve", "--listen", "127.0.0.1:0"},
	} {
		r := c.run(args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.Contains(r.stderr, path+" is empty (0 bytes), not a database") || !strings.Contains(r.stderr, "licensectl restore") {
			t.Fatalf("%v on a 0-byte file: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Fatalf("%v: the 0-byte file became %v, %v", args, fi.Size(), err)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// restoreFixture is a data directory holding one organization and a backup
// of it in backup.db; the database then gains a second organization, so a
// restore that happened shows (Later gone) and one refused shows too.
func restoreFixture(t *testing.T) (c *cli, backup string) {
	t.Helper()
	c = newLocal(t)
	c.ok("org", "create", "Acme Zq9Garble")
	backup = filepath.Join(c.dir, "backup.db")
	c.ok("backup", backup)
	c.ok("org", "create", "Later")
	return c, backup
}

// dataUnchanged fails unless the data dir still holds the database with
// Later in it and nothing the restore staged.
func dataUnchanged(t *testing.T, c *cli) {
	t.Helper()
	if out := c.ok("org", "list"); !strings.Contains(out, "later") {
		t.Fatalf("the database was replaced:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(c.dir, "data", "*restore*"))
	dot, _ := filepath.Glob(filepath.Join(c.dir, "data", ".*"))
	if len(left)+len(dot) != 0 {
		t.Fatalf("left in the data dir: %v %v", left, dot)
	}
}

// Issue 19 #7: a sparse or padded backup is restored as the pages its
// records use, not copied whole.
func TestRestoreSparseBackup(t *testing.T) {
	t.Parallel()
	c, backup := restoreFixture(t)
	if err := os.Truncate(backup, 1<<30); err != nil {
		t.Fatal(err)
	}
	var v restoreView
	c.json(&v, "restore", backup)
	fi, err := os.Stat(v.Database)
	if err != nil {
		t.Fatal(err)
	}
	blocks := fi.Sys().(*syscall.Stat_t).Blocks * 512
	if fi.Size() > 4<<20 || blocks > 4<<20 || v.Bytes != fi.Size() {
		t.Fatalf("restored a 1 GiB sparse backup as %d bytes (%d on disk), reported %d", fi.Size(), blocks, v.Bytes)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("restored database mode %v, want 0600", fi.Mode().Perm())
	}
	out := c.ok("org", "list")
	if !strings.Contains(out, "acme-zq9garble") || strings.Contains(out, "later") {
		t.Fatalf("after restore:\n%s", out)
	}
}

// A named pipe is refused at once: opening it for reading would wait for a
// writer forever.
func TestRestoreRefusesFIFO(t *testing.T) {
	t.Parallel()
	c, _ := restoreFixture(t)
	fifo := filepath.Join(c.dir, "pipe.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.fails(1, args("restore", fifo), "is not a regular file (a named pipe)")
	if r.took > 5*time.Second {
		t.Fatalf("refusing a FIFO took %v", r.took)
	}
	c.fails(1, args("restore", c.dir), "is not a regular file (a directory)")
	empty := filepath.Join(c.dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c.fails(1, args("restore", empty), "is empty (0 bytes)")
	dataUnchanged(t, c)
}

// A backup with a record that does not decode passes bbolt's page check
// but would answer 500 on every read of it: refused, naming the bucket and
// the key, before anything is replaced.
func TestRestoreRefusesGarbledRecord(t *testing.T) {
	t.Parallel()
	c, backup := restoreFixture(t)
	raw, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	// The organization record stores its name and slug each as a length
	// and the bytes: a length past the record's end garbles it, and the
	// pages stay sound.
	i := bytes.Index(raw, []byte("\x0eAcme Zq9Garble\x0eacme-zq9garble"))
	if i < 0 {
		t.Fatal("organization record not found in the backup")
	}
	raw[i] = 0x7f
	if err := os.WriteFile(backup, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	c.fails(1, args("restore", backup), "garbled record", "decode orgs/")
	dataUnchanged(t, c)
}

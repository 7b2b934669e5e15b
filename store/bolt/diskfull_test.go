package bolt

import (
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"licensectl/store"
)

// Issue 9 #13: on a disk that takes no more writes, every write is
// unavailable (not internal) and Ping says so until space comes back. The
// disk is filled by a file-size limit on this process, which fails writes
// past it with EFBIG as a full disk fails them with ENOSPC.
func TestDiskFull(t *testing.T) {
	signal.Ignore(syscall.SIGXFSZ) // else the limit kills the process
	defer signal.Reset(syscall.SIGXFSZ)
	db, err := Open(filepath.Join(t.TempDir(), "licensectl.db"), Options{Hasher: fakeHasher{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limit := old
	limit.Cur = 8192 // the two meta pages: no data page may be written
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skipf("cannot limit the file size here: %v", err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer restore()

	_, err = db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Studio"})
	if code := store.ErrorCode(err); code != store.ECodeUnavailable {
		t.Fatalf("write on a full disk: %v (code %q), want unavailable", err, code)
	}
	if err := db.Ping(ctx); err == nil {
		t.Fatal("Ping says ready on a full disk")
	}
	restore()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping after space came back: %v", err)
	}
	if _, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Studio"}); err != nil {
		t.Fatalf("write after space came back: %v", err)
	}
}

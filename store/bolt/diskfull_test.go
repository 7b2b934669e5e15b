package bolt

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"licensectl/store"
)

// Issue 9 #13: on a disk that takes no more writes, every write is
// unavailable (not internal) and Ping says so until space comes back. The
// disk is filled by a file-size limit on this process, which fails writes
// past it with EFBIG as a full disk fails them with ENOSPC. The limit holds
// for every file of the process, the test binary's own log included (which
// go test writes past 8 KiB once enough tests ran before this one), so the
// test runs itself in a child process, as server's TestDiskFullHTTP does.
func TestDiskFull(t *testing.T) {
	if os.Getenv("LICENSECTL_DISKFULL_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFull$", "-test.v")
		cmd.Env = append(os.Environ(), "LICENSECTL_DISKFULL_CHILD=1")
		out, err := cmd.CombinedOutput()
		switch {
		case err == nil && strings.Contains(string(out), "--- SKIP: TestDiskFull"):
			t.Skipf("child skipped:\n%s", out)
		case err != nil || !strings.Contains(string(out), "--- PASS: TestDiskFull"):
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	signal.Ignore(syscall.SIGXFSZ) // else the limit kills the process
	defer signal.Reset(syscall.SIGXFSZ)
	db, err := Open(filepath.Join(t.TempDir(), "licensectl.db"), Options{Policies: store.Policies{Hasher: fakeHasher{}}})
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

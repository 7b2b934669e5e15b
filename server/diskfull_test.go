package server_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"licensectl/server/servertest"
)

// TestDiskFullHTTP: when the data volume takes no more writes, writes answer
// 503 unavailable (not 500 internal) and /readyz says not ready, until
// space comes back. The volume is made "full" with a file-size limit
// (RLIMIT_FSIZE) on the process, so the test runs itself in a child
// process that sets it.
func TestDiskFullHTTP(t *testing.T) {
	t.Parallel()
	if os.Getenv(servertest.StoreEnv) == "postgres" {
		t.Skip("a full disk under the bbolt file; PostgreSQL's disk is the database server's")
	}
	if os.Getenv("LICENSECTL_DISKFULL_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFullHTTP$", "-test.v")
		cmd.Env = append(os.Environ(), "LICENSECTL_DISKFULL_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDiskFullHTTP") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	signal.Ignore(syscall.SIGXFSZ) // the limit then fails writes with EFBIG
	f := newRT(t)
	f.s.Do(t, "GET", "/readyz", nil).Want(t, http.StatusOK)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	// Writes past 2 MiB into any file fail from now on.
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 2 << 20, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	var plan struct {
		ID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Bulk"}).Want(t, http.StatusCreated).JSON(t, &plan)
	full := false
	for i := 0; i < 100 && !full; i++ {
		r := f.mgmt(t, "POST", "/licenses", map[string]any{"plan_id": plan.ID, "quantity": 1000})
		switch r.Status {
		case http.StatusCreated:
		case http.StatusServiceUnavailable:
			r.WantError(t, http.StatusServiceUnavailable, "unavailable")
			full = true
		default:
			t.Fatalf("write %d on a full disk: %d %s", i, r.Status, r.Body)
		}
	}
	if !full {
		t.Fatal("the disk never filled")
	}
	f.s.Do(t, "GET", "/readyz", nil).WantError(t, http.StatusServiceUnavailable, "unavailable")
	// Reads still work.
	f.mgmt(t, "GET", "/licenses?per_page=1", nil).Want(t, http.StatusOK)

	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	f.s.Do(t, "GET", "/readyz", nil).Want(t, http.StatusOK)
	f.mgmt(t, "POST", "/licenses", map[string]any{"plan_id": plan.ID, "quantity": 1}).Want(t, http.StatusCreated)
	fmt.Println("disk full: writes refused with 503, readiness followed")
}

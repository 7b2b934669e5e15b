// Package pgtest gives tests an empty PostgreSQL database each
// (docs/design.md §12): on the server $LICENSECTL_TEST_POSTGRES_URL names,
// or on a throw-away cluster it starts from Debian's postgresql package
// (initdb and postgres, socket in a temporary directory, fsync off). Under
// CI=true a missing PostgreSQL fails the test; elsewhere it is skipped
// with the package to install.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URLEnv names the server tests use instead of starting their own.
const URLEnv = "LICENSECTL_TEST_POSTGRES_URL"

var (
	once     sync.Once
	adminURL string // a database of the cluster to run CREATE DATABASE in
	setupErr error
	cluster  *exec.Cmd
	dataDir  string
	mu       sync.Mutex
	created  []string // schemas made by this process, dropped by Stop
)

// Available reports whether tests can get a database, and why not.
func Available() error {
	once.Do(setup)
	return setupErr
}

// URL returns the URL of a new, empty database that is dropped when tb
// ends. Without PostgreSQL it skips tb, or fails it under CI=true.
func URL(tb testing.TB) string {
	tb.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL is required under CI=true: %v", err)
		}
		tb.Skipf("SKIP: no PostgreSQL for the tests (%v); install Debian's postgresql package or set %s", err, URLEnv)
	}
	u, drop, err := NewDatabase(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(drop)
	return u
}

// NewDatabase makes an empty database for one test and returns its URL and
// the function that drops it. It is a schema of its own in the cluster's
// database, named first in the URL's search_path: a schema costs a few
// catalog rows where a database costs megabytes, and test servers make
// thousands.
func NewDatabase(ctx context.Context) (string, func(), error) {
	if err := Available(); err != nil {
		return "", nil, err
	}
	name := "licensectl_test_" + randomHex()
	if err := admin(ctx, `CREATE SCHEMA `+name); err != nil {
		return "", nil, err
	}
	mu.Lock()
	created = append(created, name)
	mu.Unlock()
	drop := func() {
		_ = admin(context.Background(), `DROP SCHEMA IF EXISTS `+name+` CASCADE`)
	}
	return withSearchPath(adminURL, name), drop, nil
}

func admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// withSearchPath is u with its search_path set to schema alone.
func withSearchPath(u, schema string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	q.Set("search_path", schema)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

func setup() {
	if u := os.Getenv(URLEnv); u != "" {
		adminURL = u
		return
	}
	setupErr = startCluster()
}

// binDir finds initdb: on PATH, or in Debian's versioned directory.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", errors.New("initdb not found")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// startCluster initialises a cluster in a temporary directory and starts
// it on a socket there, as the postgres user when run as root (PostgreSQL
// refuses root). The server dies with this process.
func startCluster() error {
	bin, err := binDir()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "licensectl-pgtest-")
	if err != nil {
		return err
	}
	dataDir = dir
	var cred *syscall.Credential
	owner := ""
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
		owner = "postgres"
	} else if u, err := user.Current(); err == nil {
		owner = u.Username
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", owner, "-A", "trust", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig is tied to the thread that started the child: this
		// goroutine keeps its thread for the life of the process.
		runtime.LockOSThread()
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGTERM}
		logf, _ := os.Create(filepath.Join(dir, "postgres.log"))
		if logf != nil {
			os.Chown(logf.Name(), int(credUID(cred)), int(credGID(cred)))
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		cluster = cmd
		started <- nil
		select {}
	}()
	if err := <-started; err != nil {
		return err
	}
	adminURL = fmt.Sprintf("postgres://%s@/postgres?host=%s", owner, url.QueryEscape(dir))
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(context.Background(), adminURL)
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			return fmt.Errorf("the test cluster did not start: %v: %s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func credUID(c *syscall.Credential) uint32 {
	if c == nil {
		return uint32(os.Getuid())
	}
	return c.Uid
}

func credGID(c *syscall.Credential) uint32 {
	if c == nil {
		return uint32(os.Getgid())
	}
	return c.Gid
}

// Main runs a package's tests and then stops the cluster they started, if
// any: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop drops the schemas this process made (test servers keep theirs for
// a restart until then), stops the throw-away cluster and removes its
// directory.
func Stop() {
	mu.Lock()
	names := created
	created = nil
	mu.Unlock()
	for _, name := range names {
		_ = admin(context.Background(), `DROP SCHEMA IF EXISTS `+name+` CASCADE`)
	}
	if cluster != nil && cluster.Process != nil {
		_ = cluster.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cluster.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cluster.Process.Kill()
		}
		cluster = nil
	}
	if dataDir != "" {
		os.RemoveAll(dataDir)
		dataDir = ""
	}
}

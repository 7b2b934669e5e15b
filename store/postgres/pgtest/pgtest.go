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

// TemplateMaker prepares the template every test database is copied from:
// it is given the template's URL once per process (the store's migrations).
var TemplateMaker func(ctx context.Context, url string) error

var (
	once     sync.Once
	adminURL string // a database of the cluster to run CREATE DATABASE in
	template string // the prepared template's name, "" before prepare
	setupErr error
	cluster  *exec.Cmd
	dataDir  string
	tmplMu   sync.Mutex
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

// NewDatabase creates an empty database (migrated, when TemplateMaker is
// set) and returns its URL and the function that drops it.
func NewDatabase(ctx context.Context) (string, func(), error) {
	if err := Available(); err != nil {
		return "", nil, err
	}
	tmpl, err := prepareTemplate(ctx)
	if err != nil {
		return "", nil, err
	}
	name := "licensectl_test_" + randomHex()
	if err := admin(ctx, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, tmpl)); err != nil {
		return "", nil, err
	}
	drop := func() {
		_ = admin(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	}
	return withDatabase(adminURL, name), drop, nil
}

// prepareTemplate makes, once per process, the database new ones copy.
func prepareTemplate(ctx context.Context) (string, error) {
	tmplMu.Lock()
	defer tmplMu.Unlock()
	if template != "" {
		return template, nil
	}
	name := "licensectl_tmpl_" + randomHex()
	if err := admin(ctx, `CREATE DATABASE `+name); err != nil {
		return "", err
	}
	if TemplateMaker != nil {
		if err := TemplateMaker(ctx, withDatabase(adminURL, name)); err != nil {
			return "", fmt.Errorf("prepare the test template: %w", err)
		}
	}
	template = name
	return name, nil
}

func admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	// CREATE DATABASE … TEMPLATE refuses while another session is on the
	// template; ours are closed, but a slow close can still be seen.
	for attempt := 0; ; attempt++ {
		_, err = conn.Exec(ctx, sql)
		if err == nil || attempt == 20 {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// withDatabase is u with its database replaced by name.
func withDatabase(u, name string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parsed.Path = "/" + name
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

// Stop stops the throw-away cluster and removes its directory.
func Stop() {
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

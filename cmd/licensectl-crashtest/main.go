// Command licensectl-crashtest kills a real licensectl server with SIGKILL
// while it takes concurrent writes, over and over, and checks after each
// kill that nothing it acknowledged was lost and that the file is sound.
//
//	licensectl-crashtest -bin ./licensectl -cycles 50
//
// Each cycle starts `licensectl serve` on the same data directory, checks
// every write acknowledged so far through the API (licenses, end-users,
// members, and the last session pair of every session whose refresh was
// acknowledged), then runs writers — license generation, activation,
// refresh, member creation, end-user registration — for a random time and
// kills the process. Between cycles it opens the file itself and runs
// bbolt's consistency check. scripts/crashtest builds the binary and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/password"
)

func main() {
	bin := flag.String("bin", "./licensectl", "the licensectl binary")
	cycles := flag.Int("cycles", 50, "kill -9 cycles")
	writers := flag.Int("writers", 4, "concurrent writers per kind of write")
	maxRun := flag.Duration("max-run", 600*time.Millisecond, "longest run before a kill")
	dir := flag.String("data-dir", "", "data directory (default: a new temporary one, removed at the end)")
	flag.Parse()
	if err := run(*bin, *dir, *cycles, *writers, *maxRun); err != nil {
		fmt.Fprintln(os.Stderr, "licensectl-crashtest:", err)
		os.Exit(1)
	}
}

func run(bin, dir string, cycles, writers int, maxRun time.Duration) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "licensectl-crashtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	apiKey, err := seed(dir)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	l := &ledger{}
	var fx *fixture
	for c := 1; c <= cycles; c++ {
		srv, err := start(bin, dir)
		if err != nil {
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		if fx == nil {
			if fx, err = newFixture(srv.url, apiKey); err != nil {
				srv.kill()
				return fmt.Errorf("fixture: %w", err)
			}
		}
		fx.url = srv.url
		if err := l.verify(fx, false); err != nil {
			srv.kill()
			return fmt.Errorf("cycle %d: after the previous kill: %w", c, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range writers {
			for _, write := range []func(context.Context, *fixture, int) error{l.generate, l.activateRefresh, l.register, l.addMember} {
				wg.Go(func() {
					for ctx.Err() == nil {
						if write(ctx, fx, w) != nil && ctx.Err() == nil {
							time.Sleep(10 * time.Millisecond)
						}
					}
				})
			}
		}
		time.Sleep(time.Duration(rand.Int64N(int64(maxRun))) + 50*time.Millisecond)
		srv.kill() // SIGKILL while writes are in flight
		cancel()
		wg.Wait()
		if err := checkFile(dir); err != nil {
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		fmt.Printf("cycle %d/%d: %d acknowledged writes so far\n", c, cycles, l.total())
	}
	srv, err := start(bin, dir)
	if err != nil {
		return err
	}
	fx.url = srv.url
	verr := l.verify(fx, true)
	srv.kill()
	fmt.Printf("cycles: %d\nacknowledged writes: %d\nlost writes: %d\n", cycles, l.total(), l.lost)
	if verr != nil {
		return verr
	}
	return nil
}

// seed writes an organization and an API key into a new data directory.
func seed(dir string) (string, error) {
	db, err := bolt.Open(filepath.Join(dir, "licensectl.db"), bolt.Options{Hasher: hasher()})
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx := context.Background()
	o, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Crash Test", OwnerEmail: "owner@crash.example", OwnerPassword: "correct horse battery staple 42"})
	if err != nil {
		return "", err
	}
	_, key, err := db.CreateAPIKey(ctx, o.ID, "crashtest")
	return key, err
}

func hasher() bolt.PasswordHasher { return password.NewHasher(password.Options{}) }

// checkFile opens the file as the next start will and runs bbolt's check.
func checkFile(dir string) error {
	db, err := bolt.Open(filepath.Join(dir, "licensectl.db"), bolt.Options{ReadOnly: true, Hasher: hasher()})
	if err != nil {
		return fmt.Errorf("reopen after kill: %w", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		return fmt.Errorf("consistency check after kill: %w", err)
	}
	return nil
}

// server is a running licensectl serve.
type server struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{}
}

// start starts the server on a free port, trying again on another port
// when the one picked was taken meanwhile (other processes share the host).
func start(bin, dir string) (*server, error) {
	var err error
	for range 5 {
		var s *server
		if s, err = startOn(bin, dir); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startOn(bin, dir string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "LICENSECTL_DATA_DIR="+dir, fmt.Sprintf("LICENSECTL_SERVER_LISTEN=127.0.0.1:%d", port),
		"LICENSECTL_RATELIMIT_ENABLED=false", "LICENSECTL_LOG_LEVEL=error", "LICENSECTL_METRICS_ENABLED=false")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s := &server{cmd: cmd, url: url, exited: exited}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			return nil, fmt.Errorf("server on %s exited at start", url)
		default:
		}
		if status, _ := get(url+"/readyz", ""); status == 200 {
			return s, nil
		}
	}
	s.kill()
	return nil, fmt.Errorf("server on %s not ready in 30s", url)
}

func (s *server) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

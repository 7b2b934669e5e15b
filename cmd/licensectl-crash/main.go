// Command licensectl-crash kills a real `licensectl serve` with SIGKILL
// while clients write to it, over and over, and checks after each kill
// that every write the server acknowledged is still there and that the
// file passes bbolt's consistency check. scripts/crashtest runs it.
//
//	licensectl-crash -bin ./licensectl -cycles 50 -workers 8
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"licensectl/store/bolt"
)

func main() {
	bin := flag.String("bin", "./licensectl", "the licensectl binary")
	cycles := flag.Int("cycles", 50, "kill -9 cycles")
	workers := flag.Int("workers", 8, "concurrent writers")
	maxRun := flag.Duration("max-run", 800*time.Millisecond, "longest run between kills (each is random below it)")
	flag.Parse()
	if err := run(*bin, *cycles, *workers, *maxRun); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest:", err)
		os.Exit(1)
	}
}

// acked is every write the server acknowledged, by kind.
type acked struct {
	mu       sync.Mutex
	licenses []string // license ids (generation)
	users    []string // end-user e-mails (runtime register)
	members  []string // member e-mails
	sessions []string // latest refresh token of activated sessions
}

func (a *acked) add(list *[]string, v string) {
	a.mu.Lock()
	*list = append(*list, v)
	a.mu.Unlock()
}

type env struct {
	bin, dir, url string
	op, org, key  string
	app, plan     string
	pub           string
	client        *http.Client
}

func run(bin string, cycles, workers int, maxRun time.Duration) error {
	dir, err := os.MkdirTemp("", "licensectl-crash-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	e := &env{bin: bin, dir: dir, client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}}
	srv, err := e.start()
	if err != nil {
		return err
	}
	if err := e.setup(); err != nil {
		srv.Process.Kill()
		return err
	}
	var a acked
	total, lost := 0, 0
	for c := 1; c <= cycles; c++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() { defer wg.Done(); e.write(w, &a, stop) }()
		}
		time.Sleep(time.Duration(randInt(int64(maxRun)-50e6) + 50e6))
		_ = srv.Process.Signal(syscall.SIGKILL)
		_ = srv.Wait()
		close(stop)
		wg.Wait()
		if err := check(filepath.Join(dir, "licensectl.db")); err != nil {
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		if srv, err = e.start(); err != nil {
			return fmt.Errorf("cycle %d: restart: %w", c, err)
		}
		n, missing, err := e.verify(&a)
		if err != nil {
			srv.Process.Kill()
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		total, lost = n, missing
		if missing > 0 {
			break
		}
	}
	srv.Process.Kill()
	_ = srv.Wait()
	fmt.Printf("cycles: %d\nacknowledged writes: %d\nlost writes: %d\n", cycles, total, lost)
	if lost > 0 {
		return errors.New("acknowledged writes were lost")
	}
	return nil
}

// check runs bbolt's consistency check on the file of the killed server.
func check(path string) error {
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("open after kill: %w", err)
	}
	defer db.Close()
	return db.Check()
}

// start runs the server on a free port and waits until it is ready.
func (e *env) start() (*exec.Cmd, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(e.bin, "serve", "--data-dir", e.dir, "--listen", addr)
	cmd.Env = append(os.Environ(), "LICENSECTL_RATELIMIT_ENABLED=false", "LICENSECTL_SIGNUP_CHALLENGE=off", "LICENSECTL_LOG_LEVEL=error")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e.url = "http://" + addr
	for range 200 {
		if res, err := e.client.Get(e.url + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return cmd, nil
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	cmd.Process.Kill()
	return nil, errors.New("the server did not get ready")
}

// setup creates an organization, an API key, an application and a plan.
func (e *env) setup() error {
	tok, err := os.ReadFile(filepath.Join(e.dir, "operator.token"))
	if err != nil {
		return err
	}
	e.op = strings.TrimSpace(string(tok))
	var org struct{ ID string }
	if err := e.call("POST", "/v1/admin/organizations", e.op, map[string]any{"name": "Crash"}, &org, 201); err != nil {
		return err
	}
	e.org = org.ID
	var key struct{ Plaintext string }
	if err := e.call("POST", "/v1/mgmt/api-keys", e.op, map[string]any{"label": "crash"}, &key, 201); err != nil {
		return err
	}
	e.key = key.Plaintext
	var app struct {
		ID string `json:"application_id"`
	}
	if err := e.call("POST", "/v1/mgmt/applications", e.key, map[string]any{"name": "Crash App"}, &app, 201); err != nil {
		return err
	}
	e.app = app.ID
	var plan struct {
		ID string `json:"plan_id"`
	}
	if err := e.call("POST", "/v1/mgmt/applications/"+e.app+"/plans", e.key, map[string]any{"name": "P", "max_devices": 1000}, &plan, 201); err != nil {
		return err
	}
	e.plan = plan.ID
	var detail struct {
		Environments []struct {
			Name      string `json:"name"`
			PublicKey string `json:"public_key"`
		} `json:"environments"`
	}
	if err := e.call("GET", "/v1/mgmt/applications/"+e.app, e.key, nil, &detail, 200); err != nil {
		return err
	}
	for _, en := range detail.Environments {
		if en.Name == "production" {
			e.pub = en.PublicKey
		}
	}
	return nil
}

// write does acknowledged writes of every kind until stop or a failure (the
// server was killed).
func (e *env) write(w int, a *acked, stop chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		var err error
		switch i % 4 {
		case 0:
			var gen struct {
				Licenses []struct{ ID, Key string }
			}
			if err = e.call("POST", "/v1/mgmt/applications/"+e.app+"/licenses", e.key, map[string]any{"plan_id": e.plan, "quantity": 1}, &gen, 201); err == nil {
				a.add(&a.licenses, gen.Licenses[0].ID)
				var s struct {
					RefreshToken string `json:"refresh_token"`
				}
				body := map[string]any{"license_key": gen.Licenses[0].Key, "device_fingerprint": "fp-" + nonce(), "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "nonce": nonce()}
				if err = e.runtime("/licenses/activate", body, &s, 200); err == nil {
					var r struct {
						RefreshToken string `json:"refresh_token"`
					}
					if err = e.runtime("/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}, &r, 200); err == nil {
						a.add(&a.sessions, r.RefreshToken)
					}
				}
			}
		case 1:
			email := fmt.Sprintf("user-%d-%s@example.com", w, nonce())
			if err = e.runtime("/auth/register", map[string]any{"email": email, "password": "crash test password 42"}, nil, 201); err == nil {
				a.add(&a.users, email)
			}
		case 2:
			email := fmt.Sprintf("member-%d-%s@example.com", w, nonce())
			if err = e.call("POST", "/v1/mgmt/organizations/members", e.key, map[string]any{"email": email, "password": "crash test password 42",
				"role": "viewer", "first_name": "C", "last_name": "T"}, nil, 201, 200); err == nil {
				a.add(&a.members, email)
			}
		}
		if err != nil {
			return
		}
	}
}

// verify checks every acknowledged write after a restart and returns how
// many there are and how many are missing.
func (e *env) verify(a *acked) (int, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	missing := 0
	var page struct{ Total int }
	if err := e.call("GET", "/v1/mgmt/applications/"+e.app+"/licenses?per_page=1", e.key, nil, &page, 200); err != nil {
		return 0, 0, err
	}
	if page.Total < len(a.licenses) {
		missing += len(a.licenses) - page.Total
	}
	// The newest of each kind are the likeliest to be lost: check them by id.
	for _, id := range tail(a.licenses, 20) {
		if err := e.call("GET", "/v1/mgmt/applications/"+e.app+"/licenses/"+id, e.key, nil, nil, 200); err != nil {
			missing++
		}
	}
	for _, email := range tail(a.users, 20) {
		var p struct{ Total int }
		if err := e.call("GET", "/v1/mgmt/applications/"+e.app+"/users?email="+email, e.key, nil, &p, 200); err != nil || p.Total != 1 {
			missing++
		}
	}
	var members []struct{ Email string }
	if err := e.call("GET", "/v1/mgmt/organizations/members", e.key, nil, &members, 200); err != nil {
		return 0, 0, err
	}
	have := map[string]bool{}
	for _, m := range members {
		have[m.Email] = true
	}
	for _, email := range a.members {
		if !have[email] {
			missing++
		}
	}
	// A refresh acknowledged before the kill left a usable refresh token;
	// using it rotates it, so keep the new one.
	for i := max(0, len(a.sessions)-10); i < len(a.sessions); i++ {
		var r struct {
			RefreshToken string `json:"refresh_token"`
		}
		if err := e.runtime("/sessions/refresh", map[string]any{"refresh_token": a.sessions[i]}, &r, 200); err != nil {
			missing++
			continue
		}
		a.sessions[i] = r.RefreshToken
	}
	return len(a.licenses) + len(a.users) + len(a.members) + len(a.sessions), missing, nil
}

func tail(s []string, n int) []string { return s[max(0, len(s)-n):] }

func (e *env) runtime(path string, body, out any, want ...int) error {
	return e.do("POST", "/v1/runtime"+path, map[string]string{"x-api-key": e.pub}, body, out, want...)
}

func (e *env) call(method, path, cred string, body, out any, want ...int) error {
	h := map[string]string{"Authorization": "Bearer " + cred}
	if cred == e.op {
		h["x-organization-id"] = e.org
	}
	return e.do(method, path, h, body, out, want...)
}

func (e *env) do(method, path string, hdr map[string]string, body, out any, want ...int) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	ok := false
	for _, w := range want {
		ok = ok || res.StatusCode == w
	}
	if !ok {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func nonce() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randInt(n int64) int64 {
	v, _ := rand.Int(rand.Reader, big.NewInt(max(n, 1)))
	return v.Int64()
}

package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store/postgres/pgtest"
)

// pgServe is one `licensectl serve` on a PostgreSQL database.
type pgServe struct {
	cmd    *exec.Cmd
	url    string
	exited chan error
}

// twoServersOperator is the operator token both servers of a test accept.
const twoServersOperator = "lctl_op_two_servers_test_token_0123456789abcdef"

// startPGServe runs the real binary on the database dbURL with its own
// data directory.
func startPGServe(t *testing.T, dbURL string, env ...string) *pgServe {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(binary, "serve", "--init", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"LICENSECTL_STORAGE_DRIVER=postgres",
		"LICENSECTL_STORAGE_POSTGRES_URL="+dbURL,
		"LICENSECTL_ADMIN_OPERATOR_TOKEN="+twoServersOperator,
		"LICENSECTL_LOG_FORMAT=json",
		"LICENSECTL_SIGNUP_CHALLENGE=off",
		"LICENSECTL_WEBHOOKS_ALLOW_HTTP=true",
		"LICENSECTL_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true",
		"LICENSECTL_WEBHOOKS_TIMEOUT=2s",
		"LICENSECTL_RATELIMIT_RUNTIME=1000000",
		"LICENSECTL_RATELIMIT_RUNTIME_AUTH=1000000",
		"LICENSECTL_RATELIMIT_MANAGEMENT=1000000",
		"LICENSECTL_RATELIMIT_LOGIN_FAILURES=4",
	)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &pgServe{cmd: cmd, exited: make(chan error, 1)}
	urls := make(chan string, 1)
	var log bytes.Buffer
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			log.Write(append(sc.Bytes(), '\n'))
			logMu.Unlock()
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
				u, _ := m["url"].(string)
				urls <- u
			}
		}
		s.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.exited
	})
	select {
	case s.url = <-urls:
	case err := <-s.exited:
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("serve on PostgreSQL exited (%v) before listening:\n%s", err, log.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve on PostgreSQL: no listening log line")
	}
	return s
}

// kill9 kills the server without a chance to clean up.
func (s *pgServe) kill9(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.exited <- nil // for the cleanup
}

// pgCall is one request's answer.
type pgCall struct {
	status int
	body   map[string]any
	raw    []byte
	err    error
}

var pgClient = &http.Client{Timeout: 20 * time.Second}

// call sends a JSON request; hdr is name, value pairs.
func (s *pgServe) call(method, path string, body any, hdr ...string) pgCall {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return pgCall{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := pgClient.Do(req)
	if err != nil {
		return pgCall{err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	out := pgCall{status: res.StatusCode, raw: raw, err: err}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

// must fails t unless the call answered want.
func (c pgCall) must(t *testing.T, want int) pgCall {
	t.Helper()
	if c.err != nil || c.status != want {
		t.Fatalf("status %d (%v), want %d: %s", c.status, c.err, want, c.raw)
	}
	return c
}

func (c pgCall) str(key string) string { s, _ := c.body[key].(string); return s }

func (c pgCall) code() string {
	e, _ := c.body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func pgNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// twoServerApp is what the test seeds: an organization, an application
// and its production public key.
type twoServerApp struct {
	orgID, appID, pub, email string
}

func (a twoServerApp) mgmt(s *pgServe, method, path string, body any) pgCall {
	return s.call(method, "/v1/mgmt"+path, body, "Authorization", "Bearer "+twoServersOperator, "x-organization-id", a.orgID)
}

func (a twoServerApp) runtime(s *pgServe, path string, body any) pgCall {
	return s.call("POST", "/v1/runtime"+path, body, "x-api-key", a.pub)
}

func (a twoServerApp) activateBody(key, fp string) map[string]any {
	return map[string]any{"license_key": key, "device_fingerprint": fp,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "nonce": pgNonce()}
}

// plan makes a plan of seats devices and n licenses of it.
func (a twoServerApp) licenses(t *testing.T, s *pgServe, seats, n int) []map[string]any {
	t.Helper()
	p := a.mgmt(s, "POST", "/applications/"+a.appID+"/plans", map[string]any{"name": fmt.Sprintf("Seats %d", seats), "max_devices": seats}).must(t, http.StatusCreated)
	g := a.mgmt(s, "POST", "/applications/"+a.appID+"/licenses", map[string]any{"plan_id": p.str("plan_id"), "quantity": n}).must(t, http.StatusCreated)
	var out []map[string]any
	for _, l := range g.body["licenses"].([]any) {
		out = append(out, l.(map[string]any))
	}
	return out
}

func seedTwoServerApp(t *testing.T, s *pgServe) twoServerApp {
	t.Helper()
	a := twoServerApp{email: "owner-" + pgNonce()[:8] + "@two-servers.test"}
	org := s.call("POST", "/v1/admin/organizations", map[string]any{"name": "Two Servers", "owner_email": a.email, "owner_password": "two servers password 42"},
		"Authorization", "Bearer "+twoServersOperator).must(t, http.StatusCreated)
	a.orgID = org.str("id")
	app := a.mgmt(s, "POST", "/applications", map[string]any{"name": "Two Servers App"}).must(t, http.StatusCreated)
	a.appID = app.str("id")
	if a.appID == "" {
		a.appID = app.str("application_id")
	}
	detail := a.mgmt(s, "GET", "/applications/"+a.appID, nil).must(t, http.StatusOK)
	for _, e := range detail.body["environments"].([]any) {
		env := e.(map[string]any)
		if env["name"] == "production" {
			a.pub, _ = env["public_key"].(string)
		}
	}
	if a.pub == "" {
		t.Fatalf("no production public key in %s", detail.raw)
	}
	return a
}

// TestTwoServersOnPostgreSQL runs two `licensectl serve` on one database
// and spreads requests over both (docs/design.md §12): every invariant holds
// across servers, by the database.
func TestTwoServersOnPostgreSQL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two servers")
	}
	dbURL := pgtest.URL(t)
	a, b := startPGServe(t, dbURL), startPGServe(t, dbURL)
	servers := []*pgServe{a, b}
	app := seedTwoServerApp(t, a)

	t.Run("ActivationsHoldTheSeats", func(t *testing.T) {
		key := app.licenses(t, a, 3, 1)[0]["key"].(string)
		var ok, refused atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := app.runtime(servers[i%2], "/licenses/activate", app.activateBody(key, fmt.Sprintf("seat-pc-%02d", i)))
				switch {
				case c.status == http.StatusOK:
					ok.Add(1)
				case c.code() == "device_limit_reached":
					refused.Add(1)
				default:
					t.Errorf("activation %d: %d %s", i, c.status, c.raw)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 3 || refused.Load() != 37 {
			t.Fatalf("40 parallel activations on 3 seats over two servers: %d activated, %d refused; want 3 and 37", ok.Load(), refused.Load())
		}
	})

	key := app.licenses(t, a, 5, 1)[0]["key"].(string)
	sess := app.runtime(a, "/licenses/activate", app.activateBody(key, "two-servers-pc")).must(t, http.StatusOK)

	t.Run("NonceOnce", func(t *testing.T) {
		body := app.activateBody(key, "two-servers-pc")
		app.runtime(a, "/licenses/activate", body).must(t, http.StatusOK)
		if c := app.runtime(b, "/licenses/activate", body); c.code() != "nonce_reused" {
			t.Fatalf("a nonce used on one server, sent to the other: %d %s; want nonce_reused", c.status, c.raw)
		}
	})

	t.Run("OneRefreshWinner", func(t *testing.T) {
		s := app.runtime(a, "/licenses/activate", app.activateBody(key, "refresh-pc")).must(t, http.StatusOK)
		tok := s.str("refresh_token")
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c := app.runtime(servers[i%2], "/sessions/refresh", map[string]any{"refresh_token": tok}); c.status == http.StatusOK {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("10 parallel refreshes of one token over two servers: %d succeeded, want 1", wins.Load())
		}
	})

	t.Run("SuspensionIsImmediateEverywhere", func(t *testing.T) {
		tok := sess.str("access_token")
		for _, s := range servers {
			if c := app.runtime(s, "/sessions/validate", map[string]any{"access_token": tok}).must(t, http.StatusOK); c.body["valid"] != true {
				t.Fatalf("validate before suspension: %s", c.raw)
			}
		}
		lic := app.mgmt(a, "GET", "/applications/"+app.appID+"/licenses?key="+key, nil).must(t, http.StatusOK)
		id := lic.body["data"].([]any)[0].(map[string]any)["id"].(string)
		app.mgmt(a, "PATCH", "/applications/"+app.appID+"/licenses/"+id, map[string]any{"status": "suspended"}).must(t, http.StatusOK)
		if c := app.runtime(b, "/sessions/validate", map[string]any{"access_token": tok}).must(t, http.StatusOK); c.body["valid"] != false {
			t.Fatalf("validate on the other server right after a suspension: %s; want valid false", c.raw)
		}
	})

	t.Run("LoginFailuresLockOnBoth", func(t *testing.T) {
		// login_failures is 4: two wrong passwords on each server reach it.
		for i := range 4 {
			c := servers[i%2].call("POST", "/v1/mgmt/auth/login", map[string]any{"email": app.email, "password": "wrong password " + pgNonce()})
			if c.status != http.StatusUnauthorized {
				t.Fatalf("wrong password %d: %d %s", i, c.status, c.raw)
			}
		}
		for _, s := range servers {
			if c := s.call("POST", "/v1/mgmt/auth/login", map[string]any{"email": app.email, "password": "wrong password again"}); c.status != http.StatusTooManyRequests {
				t.Fatalf("after 4 failures spread over two servers, a login answers %d %s; want 429 on both", c.status, c.raw)
			}
		}
	})

	t.Run("WebhooksOncePerEvent", func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Header.Get("webhook-id")]++
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		defer hook.Close()
		w := app.mgmt(a, "POST", "/applications/"+app.appID+"/webhooks", map[string]any{"url": hook.URL, "events": []string{"license.created"}}).must(t, http.StatusCreated)
		for i := range 20 {
			app.licenses(t, servers[i%2], 1, 1)
		}
		// Wait until the store has recorded all 20 as delivered, rather
		// than for a second in which a duplicate "would" arrive: once every
		// delivery is recorded, neither server can claim one again, and a
		// second claim of a delivery could only have been made while it was
		// pending, its send following the claim at once.
		deadline := time.Now().Add(30 * time.Second)
		for {
			l := app.mgmt(a, "GET", "/applications/"+app.appID+"/webhooks/"+w.str("id")+"/deliveries?status=delivered", nil).must(t, http.StatusOK)
			if total, _ := l.body["total"].(float64); total == 20 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("20 events were not all recorded as delivered in 30 s: %s", l.raw)
			}
			time.Sleep(100 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 20 {
			t.Fatalf("20 events over two servers gave %d distinct deliveries, want 20", len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("delivery %s was sent %d times", id, n)
			}
		}
	})

	t.Run("KillUnderLoad", func(t *testing.T) {
		c := startPGServe(t, dbURL)
		lic := app.licenses(t, b, 100000, 1)[0]["key"].(string)
		var acked sync.Map
		var bFailed atomic.Int32
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					target := []*pgServe{b, c}[i%2]
					fp := fmt.Sprintf("load-%d-%d", w, i)
					r := app.runtime(target, "/licenses/activate", app.activateBody(lic, fp))
					if r.status == http.StatusOK {
						acked.Store(fp, true)
					} else if target == b {
						bFailed.Add(1)
					}
				}
			}()
		}
		time.Sleep(time.Second)
		c.kill9(t)
		time.Sleep(time.Second)
		close(stop)
		wg.Wait()
		if n := bFailed.Load(); n > 0 {
			t.Fatalf("the surviving server failed %d activations while the other was killed", n)
		}
		var l map[string]any
		r := app.mgmt(b, "GET", "/applications/"+app.appID+"/licenses?key="+lic, nil).must(t, http.StatusOK)
		l = r.body["data"].([]any)[0].(map[string]any)
		count := 0
		acked.Range(func(any, any) bool { count++; return true })
		// A request in flight on the killed server may have committed with
		// its answer lost (at most one per worker); an acknowledged one is
		// never missing.
		if got, _ := l["devices_count"].(float64); int(got) < count || int(got) > count+4 {
			t.Fatalf("%d activations were acknowledged, the license has %v devices", count, l["devices_count"])
		}
	})

	t.Run("SurvivorDeliversTheDeadServersEvents", func(t *testing.T) {
		// A request that arrives before the committing server is killed is
		// held until it is dead and only then answered: if that server sent
		// it, it can no longer record the delivery, and only a survivor can
		// (after the dead server's lease, with the same webhook-id).
		dead := make(chan struct{})
		ids := make(chan string, 16)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-dead
			ids <- r.Header.Get("webhook-id")
			w.WriteHeader(http.StatusNoContent)
		}))
		defer hook.Close()
		d := startPGServe(t, dbURL)
		w := app.mgmt(d, "POST", "/applications/"+app.appID+"/webhooks", map[string]any{"url": hook.URL, "events": []string{"license.suspended"}}).must(t, http.StatusCreated)
		id := app.licenses(t, d, 1, 1)[0]["id"].(string)
		app.mgmt(d, "PATCH", "/applications/"+app.appID+"/licenses/"+id, map[string]any{"status": "suspended"}).must(t, http.StatusOK)
		d.kill9(t)
		close(dead)
		deadline := time.Now().Add(90 * time.Second)
		for {
			l := app.mgmt(b, "GET", "/applications/"+app.appID+"/webhooks/"+w.str("id")+"/deliveries", nil).must(t, http.StatusOK)
			if data, _ := l.body["data"].([]any); len(data) == 1 && data[0].(map[string]any)["status"] == "delivered" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the event committed on a killed server was not delivered by a survivor: %s", l.raw)
			}
			time.Sleep(250 * time.Millisecond)
		}
		first := <-ids
		for len(ids) > 0 {
			if again := <-ids; again != first {
				t.Fatalf("a resend carried webhook-id %s, the first %s", again, first)
			}
		}
	})
}

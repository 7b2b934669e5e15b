package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/servertest"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) contains(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.b.String(), sub)
}

// lines returns the JSON log records written so far.
func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// startLogged starts a server whose JSON log at level goes to the buffer.
func startLogged(t *testing.T, level slog.Level) (*servertest.Server, *syncBuffer) {
	buf := &syncBuffer{}
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	cfg.Signup.Challenge = "off"
	logger := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level}))
	return servertest.Start(t, cfg, server.WithLogger(logger)), buf
}

func findLog(lines []map[string]any, msg, key, val string) map[string]any {
	for _, l := range lines {
		if l["msg"] == msg && l[key] == val {
			return l
		}
	}
	return nil
}

func TestRequestIDAndLogLine(t *testing.T) {
	t.Parallel()
	s, logs := startLogged(t, slog.LevelInfo)
	if tok := findLog(logs.lines(t), "wrote a new operator token", "path", s.Config.DataDir+"/operator.token"); tok == nil {
		t.Fatalf("operator token creation not logged with its path: %v", logs.lines(t))
	}
	if logs.contains(s.OperatorToken()) {
		t.Fatal("the operator token's value is in the log")
	}

	t.Run("Generated", func(t *testing.T) {
		resp, err := http.Get(s.URL + "/v1/mgmt/applications")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("X-Request-Id")
		if id == "" {
			t.Fatal("no X-Request-Id on the answer")
		}
		var l map[string]any
		for deadline := time.Now().Add(5 * time.Second); l == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			l = findLog(logs.lines(t), "request", "request_id", id)
		}
		if l == nil {
			t.Fatalf("no request log line with request_id %s", id)
		}
		if l["code"] != "unauthenticated" || l["status"] != float64(401) || l["route"] != "/v1/mgmt/applications" {
			t.Fatalf("log line = %v, want code unauthenticated, status 401 and the route", l)
		}
		if _, ok := l["duration_ms"].(float64); !ok {
			t.Fatalf("duration_ms missing or not a number: %v", l)
		}
	})

	t.Run("EchoedFromProxy", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", "proxy-abc-123")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Request-Id"); got != "proxy-abc-123" {
			t.Fatalf("X-Request-Id = %q, want the proxy's", got)
		}
	})

	t.Run("MalformedReplaced", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", "two words"+strings.Repeat("x", 200))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
			t.Fatalf("X-Request-Id = %q, want a fresh id", got)
		}
	})

	t.Run("ProbesAtDebug", func(t *testing.T) {
		if l := findLog(logs.lines(t), "request", "route", "/healthz"); l != nil {
			t.Fatalf("a health probe was logged at info: %v", l)
		}
	})
}

// TestLogRequests drives log.requests through a real listener: each request
// gets its line, at info when the setting selects it and at debug otherwise,
// so a TUI that only reads does not fill the log by default.
func TestLogRequests(t *testing.T) {
	t.Parallel()
	// name → the requests logged at info, of: read (GET 200), write (POST
	// 201), denied (GET 401).
	cases := []struct {
		mode string
		info []string
	}{
		{"all", []string{"read", "write", "denied"}},
		{"writes", []string{"write", "denied"}},
		{"errors", []string{"denied"}},
		{"none", nil},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			buf := &syncBuffer{}
			cfg := config.Default()
			cfg.DataDir = t.TempDir()
			cfg.Server.Listen = "127.0.0.1:0"
			cfg.RateLimit.Enabled = false
			cfg.Log.Requests = tc.mode
			logger := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s := servertest.Start(t, cfg, server.WithLogger(logger))
			org := s.NewOrg(t)
			ids := map[string]string{
				"read":   s.As(t, org.APIKey, http.MethodGet, "/v1/mgmt/applications", nil).Want(t, 200).Header.Get("X-Request-Id"),
				"write":  s.As(t, org.APIKey, http.MethodPost, "/v1/mgmt/applications", map[string]any{"name": "Logged"}).Want(t, 201).Header.Get("X-Request-Id"),
				"denied": s.Do(t, http.MethodGet, "/v1/mgmt/applications", nil).Want(t, 401).Header.Get("X-Request-Id"),
				"probe":  s.Do(t, http.MethodGet, "/healthz", nil).Want(t, 200).Header.Get("X-Request-Id"),
			}
			for name, id := range ids {
				var l map[string]any
				for deadline := time.Now().Add(5 * time.Second); l == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					l = findLog(buf.lines(t), "request", "request_id", id)
				}
				if l == nil {
					t.Fatalf("%s: no request line with request_id %s", name, id)
				}
				want := "DEBUG"
				for _, n := range tc.info {
					if n == name {
						want = "INFO"
					}
				}
				if l["level"] != want {
					t.Errorf("%s: logged at %v, want %s", name, l["level"], want)
				}
			}
		})
	}
}

// TestReloadTLSWithoutTLSLogs: SIGHUP (ReloadTLS) on a plain-HTTP server
// reloads nothing and says so in the log, instead of nothing at all.
func TestReloadTLSWithoutTLSLogs(t *testing.T) {
	t.Parallel()
	s, logs := startLogged(t, slog.LevelInfo)
	if err := s.ReloadTLS(); err != nil {
		t.Fatal(err)
	}
	l := findLog(logs.lines(t), "SIGHUP: nothing to reload", "level", "INFO")
	if l == nil || !strings.Contains(fmt.Sprint(l["reason"]), "plain HTTP") {
		t.Fatalf("no info line saying SIGHUP had nothing to reload: %v", logs.lines(t))
	}
}

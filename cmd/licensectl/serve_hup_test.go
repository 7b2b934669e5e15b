package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestServeSIGHUPWithoutTLS: SIGHUP to a plain-HTTP server reloads nothing
// and the log says so, instead of nothing at all.
func TestServeSIGHUPWithoutTLS(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", data)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LICENSECTL_LOG_FORMAT=json", "LICENSECTL_SIGNUP_CHALLENGE=off")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	logs := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				logs <- m
			}
		}
		close(logs)
	}()
	waitLog := func(msg string) map[string]any {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case m, ok := <-logs:
				if !ok {
					t.Fatalf("server exited before logging %q", msg)
				}
				if m["msg"] == msg {
					return m
				}
			case <-deadline:
				t.Fatalf("no %q log line", msg)
			}
		}
	}
	waitLog("listening")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if m := waitLog("SIGHUP: nothing to reload"); m["level"] != "INFO" || m["reason"] == "" {
		t.Fatalf("log line = %v", m)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// TestServeSIGTERMAnswersPendingRequests runs the real binary, leaves
// kept-alive connections idle, writes a request on each and sends SIGTERM
// at once: every request is answered before the server exits (issue 19 #8).
func TestServeSIGTERMAnswersPendingRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(binary, "serve", "--init", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LICENSECTL_LOG_FORMAT=json", "LICENSECTL_SIGNUP_CHALLENGE=off")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
				u, _ := m["url"].(string)
				urls <- u
			}
		}
		exited <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatal("no listening log line")
	}

	const n = 16
	get := func(int) string { return "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" }
	conns := servertest.IdleKeptAlive(t, url, n, get)
	for i, c := range conns {
		c.Send(t, get(i))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if lost := servertest.Unanswered(t, conns, http.StatusOK); lost > 0 {
		t.Fatalf("%d of %d requests sent before SIGTERM were not answered", lost, n)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	exited <- nil // for the cleanup
}

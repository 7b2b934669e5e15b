package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeSIGTERMAnswersPendingRequests runs the real binary, leaves
// kept-alive connections idle, writes a request on each and sends SIGTERM
// at once: every request is answered before the server exits (issue 19 #8).
func TestServeSIGTERMAnswersPendingRequests(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
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
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
				u, _ := m["url"].(string)
				url <- u
			}
		}
		exited <- cmd.Wait()
	}()
	var addr string
	select {
	case u := <-url:
		addr = strings.TrimPrefix(u, "http://")
	case <-time.After(20 * time.Second):
		t.Fatal("no listening log line")
	}

	const n = 16
	const req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		conns[i], readers[i] = c, bufio.NewReader(c)
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	for _, c := range conns {
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for i := range conns {
		res, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			lost++
			continue
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("connection %d: status %d", i, res.StatusCode)
		}
	}
	if lost > 0 {
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

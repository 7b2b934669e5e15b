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

	"licensectl/server/servertest"
)

// TestServeTLSReloadsOnSIGHUP runs the real binary with certificate files,
// replaces them, sends SIGHUP, and sees the new certificate served.
func TestServeTLSReloadsOnSIGHUP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool1 := servertest.WriteSelfSignedCert(t, certFile, keyFile, 1)
	cmd := exec.Command(binary, "serve", "--init", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LICENSECTL_SERVER_TLS_CERT_FILE="+certFile, "LICENSECTL_SERVER_TLS_KEY_FILE="+keyFile,
		"LICENSECTL_LOG_FORMAT=json", "LICENSECTL_SIGNUP_CHALLENGE=off")
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
	url, _ := waitLog("listening")["url"].(string)
	get := func() int64 {
		resp, err := servertest.TLSClient(nil).Get(url + "/healthz")
		if err != nil {
			t.Fatalf("GET %s/healthz: %v", url, err)
		}
		resp.Body.Close()
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if resp, err := servertest.TLSClient(pool1).Get(url + "/healthz"); err != nil {
		t.Fatalf("the configured certificate is not served: %v", err)
	} else {
		resp.Body.Close()
	}
	servertest.WriteSelfSignedCert(t, certFile, keyFile, 2)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog("reloaded TLS certificate")
	if got := get(); got != 2 {
		t.Fatalf("serial after SIGHUP = %d, want 2", got)
	}
}

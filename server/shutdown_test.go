package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// Issue 19 #8, design §2: a request that reached the server on an idle
// kept-alive connection just before shutdown (SIGTERM calls Close) is
// answered, not dropped with the connection.
func TestShutdownAnswersRequestsOnIdleConnections(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	const n = 16
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	get := func(i int) string {
		path := "/healthz"
		if i%2 == 1 {
			path = "/v1/mgmt/applications"
		}
		return "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + org.APIKey + "\r\n\r\n"
	}
	for i := range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		conns[i], readers[i] = c, bufio.NewReader(c)
		// One exchange first: the connection is then idle and kept alive.
		if _, err := c.Write([]byte(get(i))); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Close {
			t.Fatalf("first answer %d (close %v), want 200 kept alive", res.StatusCode, res.Close)
		}
	}
	for i, c := range conns {
		if _, err := c.Write([]byte(get(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	lost := 0
	for i := range conns {
		res, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			lost++
			t.Logf("connection %d: %v", i, err)
			continue
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("connection %d: status %d, want 200", i, res.StatusCode)
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d requests sent before shutdown were not answered", lost, n)
	}
	// Nothing new is accepted after Close.
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "http://"), time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after Close")
	}
}

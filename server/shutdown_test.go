package server_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// Issue 19 #8, docs/design.md §2: a request that reached the server on an idle
// kept-alive connection just before shutdown (SIGTERM calls Close) is
// answered, not dropped with the connection.
func TestShutdownAnswersRequestsOnIdleConnections(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	get := func(i int) string {
		path := "/healthz"
		if i%2 == 1 {
			path = "/v1/mgmt/applications"
		}
		return "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + org.APIKey + "\r\n\r\n"
	}
	const n = 16
	conns := servertest.IdleKeptAlive(t, s.URL, n, get)
	for i, c := range conns {
		c.Send(t, get(i))
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if lost := servertest.Unanswered(t, conns, http.StatusOK); lost > 0 {
		t.Fatalf("%d of %d requests sent before shutdown were not answered", lost, n)
	}
	// Nothing new is accepted after Close.
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "http://"), time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after Close")
	}
}

package servertest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// RawConn is a plain TCP connection to a server, for tests that write
// requests byte by byte (malformed ones, 100-continue, keep-alive).
type RawConn struct {
	net.Conn
	R *bufio.Reader
}

// DialRaw connects to the plain-HTTP server at url ("http://host:port"). A
// deadline bounds the connection's whole use; it is closed when the test
// ends.
func DialRaw(tb testing.TB, url string) *RawConn {
	tb.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &RawConn{Conn: c, R: bufio.NewReader(c)}
}

// Send writes s as it is.
func (c *RawConn) Send(tb testing.TB, s string) {
	tb.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		tb.Fatalf("write: %v", err)
	}
}

// Answer reads one response and its whole body; err is the read's (an EOF
// when the server closed the connection without answering).
func (c *RawConn) Answer() (*http.Response, []byte, error) {
	res, err := http.ReadResponse(c.R, nil)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// MustAnswer is Answer failing the test on a read error.
func (c *RawConn) MustAnswer(tb testing.TB) (*http.Response, []byte) {
	tb.Helper()
	res, body, err := c.Answer()
	if err != nil {
		tb.Fatalf("read the answer: %v", err)
	}
	return res, body
}

// IdleKeptAlive opens n connections to url and makes one exchange of req(i)
// on the i-th, so that each is left idle and kept alive.
func IdleKeptAlive(tb testing.TB, url string, n int, req func(i int) string) []*RawConn {
	tb.Helper()
	conns := make([]*RawConn, n)
	for i := range conns {
		conns[i] = DialRaw(tb, url)
		conns[i].Send(tb, req(i))
		if res, body := conns[i].MustAnswer(tb); res.StatusCode != http.StatusOK || res.Close {
			tb.Fatalf("first answer %d %s (close %v), want 200 kept alive", res.StatusCode, body, res.Close)
		}
	}
	return conns
}

// Unanswered reads one answer on each connection and returns how many were
// closed without one; an answer with another status than want fails the
// test.
func Unanswered(tb testing.TB, conns []*RawConn, want int) int {
	tb.Helper()
	lost := 0
	for i, c := range conns {
		res, body, err := c.Answer()
		switch {
		case err != nil:
			lost++
		case res.StatusCode != want:
			tb.Errorf("connection %d: %d %s, want %d", i, res.StatusCode, body, want)
		}
	}
	return lost
}

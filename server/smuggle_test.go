package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// Issue 19 #1: nothing rewrites a connection's byte stream (docs/design.md §7). A
// repair layer that escaped lone "%" in what it took for a request line also
// rewrote bodies, answered one request twice and let an attacker's bytes
// become the head of the next request on a pooled connection.

func TestMalformedEscapeGetsPlain400(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, line := range []string{
		"GET /v1/mgmt/applications/%zz HTTP/1.1",
		"PATCH /v1/mgmt/applications/%zz/plans/%4 HTTP/1.1",
	} {
		t.Run(strings.Fields(line)[1], func(t *testing.T) {
			c := servertest.DialRaw(t, f.s.URL)
			body := `{"name":"x"}`
			// A valid request follows on the same connection: it must not be
			// read as one, since the stream is no longer trusted.
			next := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
			c.Send(t, line+"\r\nHost: x\r\nAuthorization: Bearer "+f.key+"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body+next)
			res, raw := c.MustAnswer(t)
			if res.StatusCode != http.StatusBadRequest || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || string(raw) != "400 Bad Request" {
				t.Fatalf("got %d %q %q, want net/http's plain 400", res.StatusCode, res.Header.Get("Content-Type"), raw)
			}
			if !res.Close {
				t.Fatal("the 400 does not close the connection")
			}
			// Closed with nothing more: the next request is not answered.
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if extra, err := io.ReadAll(c.R); len(extra) > 0 || err != nil {
				t.Fatalf("after the answer: %q, %v; want the connection closed with nothing more", extra, err)
			}
		})
	}
}

// A malformed escape in the query passes net/http; the API names the
// parameter instead of ignoring it.
func TestMalformedQueryEscape(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for query, field := range map[string]string{"page=%zz": "page", "per_page=5&page=%4": "page", "%zz=1": "%zz", "page=1;per_page=2": "page"} {
		t.Run(query, func(t *testing.T) {
			c := servertest.DialRaw(t, f.s.URL)
			c.Send(t, "GET /v1/mgmt/applications/"+f.app+"/plans?"+query+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+f.key+"\r\n\r\n")
			res, raw := c.MustAnswer(t)
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			(&servertest.Resp{Status: res.StatusCode, Body: raw}).Want(t, http.StatusBadRequest).JSON(t, &e)
			if e.Error.Code != "validation_failed" || !strings.Contains(e.Error.Message, field) {
				t.Fatalf("got %s, want validation_failed naming %s", raw, field)
			}
		})
	}
}

// A body sent after `Expect: 100-continue` is the body, whatever it looks
// like: stored byte-exact, one answer.
func TestExpectContinueBodyStoredExactly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, name := range []string{
		`50% off HTTP/1.1`,             // a first line the repair layer took for a request line
		`GET /%zz HTTP/1.1`,            // a whole malformed request line as text
		`100% sure %4 and %% HTTP/1.0`, // several lone escapes
	} {
		t.Run(name, func(t *testing.T) {
			c := servertest.DialRaw(t, f.s.URL)
			body := `{"name": "` + name + "\"}\n"
			c.Send(t, "POST /v1/mgmt/applications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+f.key+
				"\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n")
			if res, _ := c.MustAnswer(t); res.StatusCode != http.StatusContinue {
				t.Fatalf("status %d, want 100 Continue", res.StatusCode)
			}
			c.Send(t, body)
			res, raw := c.MustAnswer(t)
			if res.StatusCode != http.StatusCreated {
				t.Fatalf("status %d %s, want 201", res.StatusCode, raw)
			}
			var created struct {
				ApplicationID string `json:"application_id"`
			}
			(&servertest.Resp{Status: res.StatusCode, Body: raw}).JSON(t, &created)

			// Exactly one answer: nothing more arrives before the next request.
			c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if b, err := c.R.Peek(1); len(b) > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("after the answer: %q, %v; want nothing", b, err)
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))

			// The same connection then reads the stored name back.
			c.Send(t, "GET /v1/mgmt/applications/"+created.ApplicationID+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+f.key+"\r\n\r\n")
			res, raw = c.MustAnswer(t)
			var app struct{ Name string }
			(&servertest.Resp{Status: res.StatusCode, Body: raw}).Want(t, http.StatusOK).JSON(t, &app)
			if app.Name != name {
				t.Fatalf("stored name %q, want %q", app.Name, name)
			}
		})
	}
}

// Behind a real httputil.ReverseProxy that keeps one pooled connection to
// the server, an attacker's request cannot change the next client's: the
// attacker's body ends with a request head that a desynchronised server
// would take for the start of the next request (the victim's, whose API key
// would then authorize a permanent DELETE).
func TestReverseProxyPooledConnectionNotPoisoned(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	attacker, victim := s.NewOrg(t), s.NewOrg(t)
	victimApp := newApp(t, s, victim.APIKey, "Victim App")

	backend, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 1, 1 // one pooled connection, reused by everyone
	tr.ExpectContinueTimeout = 5 * time.Second        // the body follows the server's 100 Continue
	var conns atomic.Int32
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conns.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	proxy.Transport = tr
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	t.Cleanup(tr.CloseIdleConnections)

	// The smuggled head: the victim's request line becomes the value of its
	// last header, the victim's headers (API key included) follow.
	smuggled := "DELETE /v1/mgmt/applications/" + victimApp + "?permanent=true HTTP/1.1\r\nX-Pad: "
	if len(smuggled)%2 == 1 {
		smuggled = strings.Replace(smuggled, "X-Pad", "X-Padd", 1)
	}
	// Each lone "%" the repair layer escaped grew the stream by two bytes,
	// which the server then read as the start of the next request.
	body := "A " + strings.Repeat("%", len(smuggled)/2) + " HTTP/1.1\n" + smuggled
	client := &http.Client{Timeout: 10 * time.Second}
	send := func(method, path, key, body string, hdr ...string) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, front.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s through the proxy: %v", method, path, err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(raw)
	}

	for i := range 3 {
		if status, raw := send("POST", "/v1/mgmt/applications", attacker.APIKey, body, "Content-Type", "application/json", "Expect", "100-continue"); status != http.StatusBadRequest {
			t.Fatalf("attacker's request %d: %d %s, want 400 invalid_json", i, status, raw)
		}
		status, raw := send("GET", "/v1/mgmt/applications/"+victimApp, victim.APIKey, "")
		if status != http.StatusOK || !strings.Contains(raw, `"Victim App"`) {
			t.Fatalf("victim's request %d: %d %s, want its application", i, status, raw)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("the proxy opened %d connections to the server, want 1 reused", n)
	}
	s.As(t, victim.APIKey, "GET", "/v1/mgmt/applications/"+victimApp, nil).Want(t, http.StatusOK)
}

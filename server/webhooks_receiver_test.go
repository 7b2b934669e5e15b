package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"licensectl/config"
)

// receiver is an httptest endpoint that verifies every delivery's signature
// with the Standard Webhooks library and keeps what arrived.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	answer func(n int) int // status for the n-th request (from 1)
	block  chan struct{}   // when set, requests wait on it before answering
	got    []delivery
	arrive chan delivery
	// ready is closed once the secret is known: an endpoint subscribed to
	// webhook.* hears of its own creation before the test reads the secret.
	ready chan struct{}
	// inflight counts requests waiting on block.
	inflight atomic.Int32
}

// delivery is one request a receiver verified.
type delivery struct {
	ID, Timestamp, UserAgent string
	Type                     string
	Data                     map[string]any
	Raw                      map[string]any
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t, ready: make(chan struct{}), answer: func(int) int { return http.StatusOK }, arrive: make(chan delivery, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.mu.Lock()
		if rc.block != nil {
			close(rc.block)
			rc.block = nil
		}
		rc.mu.Unlock()
		rc.srv.Close()
	})
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	select {
	case <-rc.ready:
	case <-time.After(5 * time.Second):
	}
	rc.mu.Lock()
	secret, block := rc.secret, rc.block
	rc.mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		rc.t.Errorf("receiver: secret %q: %v", secret, err)
		return
	}
	// The test clock may stand far from the wall clock, so the timestamp
	// tolerance is not the library's to judge here; the signature is.
	if err := wh.VerifyIgnoringTimestamp(body, r.Header); err != nil {
		rc.t.Errorf("receiver: signature does not verify: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if _, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64); err != nil || r.Header.Get("content-type") != "application/json" {
		rc.t.Errorf("receiver: headers %v", r.Header)
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		rc.t.Errorf("receiver: body %s: %v", body, err)
		return
	}
	d := delivery{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"), UserAgent: r.UserAgent(), Raw: raw}
	d.Type, _ = raw["type"].(string)
	d.Data, _ = raw["data"].(map[string]any)
	if block != nil {
		rc.inflight.Add(1)
		defer rc.inflight.Add(-1)
		select {
		case <-block:
		case <-r.Context().Done():
			return
		}
	}
	rc.mu.Lock()
	rc.got = append(rc.got, d)
	n := len(rc.got)
	rc.mu.Unlock()
	w.WriteHeader(rc.answer(n))
	rc.arrive <- d
}

// URL is where the receiver listens.
func (rc *receiver) URL() string { return rc.srv.URL + "/hook" }

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.secret == "" {
		close(rc.ready)
	}
	rc.secret = s
}

// next waits for the next delivery of the given type, skipping others.
func (rc *receiver) next(t *testing.T, typ string) delivery {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case d := <-rc.arrive:
			if d.Type == typ {
				return d
			}
		case <-deadline:
			t.Fatalf("no %s delivery arrived", typ)
		}
	}
}

// none checks that no delivery of typ arrives within a short wait.
func (rc *receiver) none(t *testing.T, typ string, wait time.Duration) {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case d := <-rc.arrive:
			if d.Type == typ {
				t.Fatalf("unexpected %s delivery: %v", typ, d.Raw)
			}
		case <-deadline:
			return
		}
	}
}

// local lets tests register loopback receivers over plain http.
func local(c *config.Config) {
	c.Webhooks.AllowHTTP = true
	c.Webhooks.AllowPrivateTargets = true
}

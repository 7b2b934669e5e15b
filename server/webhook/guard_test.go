package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/server/webhook"
	"licensectl/store"
)

// TestDialRefusesPrivate: with private targets off, the dial itself refuses
// a loopback address, whether given literally or through a host name that
// resolves to it (what DNS rebinding would do after registration).
func TestDialRefusesPrivate(t *testing.T) {
	var hits atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer rc.Close()
	port := rc.URL[strings.LastIndex(rc.URL, ":"):]
	g := webhook.NewGuard(true, false)
	s := &webhook.Sender{Client: g.Client(2 * time.Second), UserAgent: "licensectl/test", Now: time.Now}
	for _, u := range []string{rc.URL, "http://localhost" + port, "http://[::ffff:127.0.0.1]" + port} {
		t.Run("ErrRefused "+u, func(t *testing.T) {
			job := &store.DeliveryJob{URL: u, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Delivery: &store.Delivery{ID: store.NewID(), Body: []byte(`{}`)}}
			if a := s.Send(context.Background(), job); a.Status != 0 {
				t.Fatalf("status %d, want no answer", a.Status)
			}
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("the receiver was reached %d times", hits.Load())
	}
	t.Run("OKAllowed", func(t *testing.T) {
		g := webhook.NewGuard(true, true)
		s := &webhook.Sender{Client: g.Client(2 * time.Second), UserAgent: "licensectl/test", Now: time.Now}
		job := &store.DeliveryJob{URL: rc.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Delivery: &store.Delivery{ID: store.NewID(), Body: []byte(`{}`)}}
		if a := s.Send(context.Background(), job); a.Status != http.StatusOK || hits.Load() != 1 {
			t.Fatalf("status %d, hits %d", a.Status, hits.Load())
		}
	})
}

// TestCheckURL covers registration rules that need no server.
func TestCheckURL(t *testing.T) {
	g := webhook.NewGuard(false, false)
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"https://93.184.215.14/x", true},
		{"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x", true},
		{"http://93.184.215.14/x", false},
		{"https://user:pw@93.184.215.14/x", false},
		{"https://172.16.0.1/x", false},
		{"https://[fe80::1]/x", false},
		{"https://[fc00::1]/x", false},
		{"https://100.127.255.254/x", false},
		{"/relative", false},
	} {
		err := g.CheckURL(context.Background(), c.url)
		if (err == nil) != c.ok {
			t.Errorf("CheckURL(%q) = %v", c.url, err)
		}
		if err != nil && store.AsError(err).Field != "url" {
			t.Errorf("CheckURL(%q): field %q", c.url, store.AsError(err).Field)
		}
	}
}

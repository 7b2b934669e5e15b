package server_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"licensectl/server"
	"licensectl/server/servertest"
)

// TestOverloadSheds: with a write queue bound shorter than any wait, every
// activation is shed — 503 overloaded with Retry-After: 1 in the runtime
// shape — nothing is bound, every shed request is counted, and reads are
// served all along (docs/design.md §14).
func TestOverloadSheds(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 100})
	// The fixture is written first; then the same data is served with a
	// bound no queued write can meet.
	cfg := f.s.Config
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Server.MaxQueueWait = time.Nanosecond
	f.s = servertest.Start(t, cfg)
	// Before any is shed, every write route's series is there at 0, and no
	// read's (reads are never shed).
	before := scrape(t, f.s, f.s.URL+"/metrics")
	for _, route := range []string{"/v1/runtime/licenses/activate", "/v1/mgmt/applications/{id}/licenses"} {
		if got, ok := before[`licensectl_requests_shed_total{route="`+route+`"}`]; !ok || got != 0 {
			t.Fatalf("shed counter of %s before any shed = %v (present %v), want 0", route, got, ok)
		}
	}
	if _, ok := before[`licensectl_requests_shed_total{route="/v1/runtime/applications/{id}/jwks.json"}`]; ok {
		t.Fatal("a read route has a shed series")
	}
	const n = 16
	var wg sync.WaitGroup
	res := make([]int, n)
	retry := make([]string, n)
	codes := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.s.Do(t, "POST", "/v1/runtime/licenses/activate", f.activateBody(key, "pc-"+string(rune('a'+i))), "x-api-key", f.pub)
			res[i], retry[i] = r.Status, r.Header.Get("Retry-After")
			var e struct{ Error struct{ Code string } }
			r.JSON(t, &e)
			codes[i] = e.Error.Code
		}()
	}
	wg.Wait()
	for i := range n {
		if res[i] != http.StatusServiceUnavailable || codes[i] != "overloaded" || retry[i] != "1" {
			t.Fatalf("activation %d: %d %q Retry-After %q, want 503 overloaded with Retry-After 1", i, res[i], codes[i], retry[i])
		}
	}
	if d := f.lic(t, key); len(d.Devices) != 0 || d.Status != "inactive" {
		t.Fatalf("after shed activations: %d devices, status %s", len(d.Devices), d.Status)
	}
	m := scrape(t, f.s, f.s.URL+"/metrics")
	if got := m[`licensectl_requests_shed_total{route="/v1/runtime/licenses/activate"}`]; got != n {
		t.Fatalf("shed counter = %v, want %d", got, n)
	}
}

// TestOverloadAdmissionShedsWritesServesReads: with no write admitted at
// once (the write admission full), every runtime write is shed after
// max_queue_wait — 503 overloaded with Retry-After: 1, nothing changed,
// counted — while validations and entitlement checks, which do not pass the
// admission, are answered all along (docs/design.md §14).
func TestOverloadAdmissionShedsWritesServesReads(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 100})
	s := f.activate(t, key, "pc-before")
	cfg := f.s.Config
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Server.MaxQueueWait = 200 * time.Millisecond
	f.s = servertest.Start(t, cfg, server.WithWriteSlots(0))
	writes := []struct {
		name, path string
		body       map[string]any
	}{
		{"Activate", "/licenses/activate", f.activateBody(key, "pc-shed")},
		{"Refresh", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}},
		{"Register", "/auth/register", map[string]any{"email": "shed@example.com", "password": servertest.Password}},
	}
	var wg sync.WaitGroup
	answers := make([]*servertest.Resp, len(writes))
	for i, w := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = f.do(t, "POST", w.path, w.body)
		}()
	}
	// Reads while the writes wait to be shed.
	for range 5 {
		f.wantValid(t, s.AccessToken)
		f.do(t, "GET", "/entitlements/check?key=pro", nil, "Authorization", "Bearer "+s.AccessToken).Want(t, http.StatusOK)
	}
	wg.Wait()
	for i, r := range answers {
		r.WantError(t, http.StatusServiceUnavailable, "overloaded")
		if got := r.Header.Get("Retry-After"); got != "1" {
			t.Fatalf("%s: Retry-After %q, want 1", writes[i].name, got)
		}
	}
	if d := f.lic(t, key); len(d.Devices) != 1 || d.Devices[0].Fingerprint != "pc-before" {
		t.Fatalf("after shed writes the license has %+v", d.Devices)
	}
	// The refresh token was not rotated: it still refreshes once admitted.
	m := scrape(t, f.s, f.s.URL+"/metrics")
	for _, route := range []string{"/v1/runtime/licenses/activate", "/v1/runtime/sessions/refresh", "/v1/runtime/auth/register"} {
		if got := m[`licensectl_requests_shed_total{route="`+route+`"}`]; got != 1 {
			t.Fatalf("shed counter of %s = %v, want 1", route, got)
		}
	}
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	f.s = servertest.Start(t, cfg)
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).Want(t, http.StatusOK)
	f.do(t, "POST", "/auth/register", map[string]any{"email": "shed@example.com", "password": servertest.Password}).Want(t, http.StatusCreated)
}

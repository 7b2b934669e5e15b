package server_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

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

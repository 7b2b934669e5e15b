package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"licensectl/server/servertest"
)

// Issue 9 #1: made-up methods and paths must not grow the metrics page.
func TestMetricsLabelsBounded(t *testing.T) {
	s := servertest.New(t)
	for i := range 50 {
		req, err := http.NewRequest(fmt.Sprintf("BREW%d", i), s.URL+fmt.Sprintf("/v1/mgmt/nothing-%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	series := 0
	for name := range scrape(t, s, s.URL+"/metrics") {
		if strings.HasPrefix(name, "licensectl_http_requests_total{") {
			series++
			if strings.Contains(name, "BREW") || strings.Contains(name, "nothing-") {
				t.Fatalf("a made-up method or path became a label: %s", name)
			}
		}
	}
	if series > 3 {
		t.Fatalf("%d request series after 50 made-up requests", series)
	}
}

// Issue 9 #2: dot segments are never redirected to the parent resource.
func TestNoRedirects(t *testing.T) {
	f := newFixture(t)
	ent := f.do(t, "POST", "/entitlements", map[string]any{"key": "pro", "name": "Pro"}).Want(t, http.StatusCreated).Map(t)
	client := *f.s.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, path := range []string{
		"/entitlements/..", "/entitlements/%2e%2e", "/entitlements/%2E%2E", "/entitlements/.", "/./entitlements",
		"/entitlements/../../" + f.app, "/entitlements/%2e%2e?permanent=true",
	} {
		for _, method := range []string{"GET", "DELETE"} {
			req, _ := http.NewRequest(method, f.s.URL+"/v1/mgmt/applications/"+f.app+path, nil)
			req.Header.Set("Authorization", "Bearer "+f.key)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("%s %s: %d (Location %q), want 404", method, path, res.StatusCode, res.Header.Get("Location"))
			}
		}
	}
	// Nothing was deleted.
	f.do(t, "GET", "", nil).Want(t, http.StatusOK)
	if list := f.do(t, "GET", "/entitlements", nil).List(t); len(list) != 1 || list[0]["id"] != ent["entitlement_id"] {
		t.Fatalf("entitlements = %v", list)
	}
}

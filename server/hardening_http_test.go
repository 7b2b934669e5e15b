package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"licensectl/config"
)

// TestMetricsLabelsClosed: made-up methods and unknown paths must not grow
// the metrics page; they collapse to one label value each.
func TestMetricsLabelsClosed(t *testing.T) {
	f := newRT(t)
	for i := range 20 {
		f.s.Do(t, fmt.Sprintf("XMETHOD%d", i), "/v1/mgmt/applications", nil)
		f.s.Do(t, "GET", fmt.Sprintf("/nowhere/%d", i), nil).WantError(t, http.StatusNotFound, "not_found")
	}
	m := scrape(t, f.s, f.s.URL+"/metrics")
	other := 0.0
	for series, v := range m {
		if strings.Contains(series, "XMETHOD") || strings.Contains(series, "nowhere") {
			t.Fatalf("metrics carry a client-chosen label: %s", series)
		}
		if strings.HasPrefix(series, "licensectl_http_requests_total{") && strings.Contains(series, `method="other"`) {
			other += v
		}
	}
	if other != 20 {
		t.Fatalf(`requests with method="other" = %v, want 20`, other)
	}
}

// rawRequest sends one request line as written (no client cleaning) and
// returns the status and body.
func rawRequest(t *testing.T, url, method, target string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
	for i := 0; i+1 < len(hdr); i += 2 {
		req += hdr[i] + ": " + hdr[i+1] + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

// TestNoRedirectFromDotSegments: the router must not clean `..` into a
// redirect to the parent (a redirect-following DELETE would remove the
// application); such paths are 404 not_found and change nothing.
func TestNoRedirectFromDotSegments(t *testing.T) {
	f := newRT(t, func(c *config.Config) {})
	base := "/v1/mgmt/applications/" + f.appID
	for _, target := range []string{
		base + "/entitlements/..?permanent=true",
		base + "/entitlements/%2e%2e?permanent=true",
		base + "/entitlements/%2E%2E/?permanent=true",
		base + "/./entitlements",
		"/v1/mgmt//applications",
	} {
		t.Run("ErrNotFound", func(t *testing.T) {
			status, hdr, body := rawRequest(t, f.s.URL, "DELETE", target, "Authorization", "Bearer "+f.org.APIKey)
			if status != http.StatusNotFound || hdr.Get("Location") != "" || !strings.Contains(body, `"not_found"`) {
				t.Fatalf("DELETE %s = %d Location %q %s, want 404 not_found", target, status, hdr.Get("Location"), body)
			}
		})
	}
	f.mgmt(t, "GET", "", nil).Want(t, http.StatusOK)
	if d := f.mgmt(t, "GET", "", nil).Map(t); d["status"] != "active" {
		t.Fatalf("application after dot-segment requests: %v", d["status"])
	}
}

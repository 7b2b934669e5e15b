package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server/servertest"
)

// scrape reads the metrics page at url and returns its samples by series,
// e.g. `licensectl_runtime_calls_total{endpoint="validate",outcome="valid"}`.
func scrape(t *testing.T, s *servertest.Server, url string) map[string]float64 {
	t.Helper()
	res, err := s.Client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, res.StatusCode)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func TestRuntimeMetrics(t *testing.T) {
	t.Parallel()
	f := newRT(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Runtime = 1000
		c.RateLimit.RuntimeAuth = 1000
		c.RateLimit.LoginFailures = 2
	})
	keys := f.licenses(t, 2, planOpts{})
	s1 := f.activate(t, keys[0], "fp-1")
	s2 := f.activate(t, keys[1], "fp-2")
	f.wantValid(t, s1.AccessToken)
	f.wantValid(t, s1.AccessToken)
	f.setStatus(t, "licenses", f.ids[keys[1]], "suspended")
	f.wantReason(t, s2.AccessToken, "license_suspended")
	f.wantReason(t, "nope", "token_invalid")
	f.register(t, "carol@example.com")
	for range 3 {
		f.do(t, "POST", "/auth/login", f.loginBody("carol@example.com", "wrong password 123", "fp-c"))
	}
	// The right password too is refused while the account is throttled.
	f.do(t, "POST", "/auth/login", f.loginBody("carol@example.com", servertest.Password, "fp-c")).WantError(t, http.StatusTooManyRequests, "rate_limited")

	m := scrape(t, f.s, f.s.URL+"/metrics")
	for series, want := range map[string]float64{
		`licensectl_runtime_calls_total{endpoint="activate",outcome="ok"}`:                2,
		`licensectl_runtime_calls_total{endpoint="validate",outcome="valid"}`:             2,
		`licensectl_runtime_calls_total{endpoint="validate",outcome="license_suspended"}`: 1,
		`licensectl_runtime_calls_total{endpoint="validate",outcome="token_invalid"}`:     1,
		`licensectl_runtime_calls_total{endpoint="register",outcome="ok"}`:                1,
		`licensectl_runtime_calls_total{endpoint="login",outcome="invalid_credentials"}`:  2,
		`licensectl_runtime_calls_total{endpoint="login",outcome="rate_limited"}`:         2,
		`licensectl_rate_limited_total{limiter="runtime_login"}`:                          2,
		`licensectl_rate_limited_total{limiter="runtime_ip"}`:                             0,
		`licensectl_group_commit_writes_count`:                                            m[`licensectl_group_commit_duration_seconds_count`],
		`licensectl_runtime_sessions`:                                                     2,
	} {
		if got, ok := m[series]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	if m[`licensectl_group_commit_writes_count`] < 1 || m[`licensectl_group_commit_writes_sum`] < m[`licensectl_group_commit_writes_count`] {
		t.Errorf("group commits: %v writes in %v commits", m[`licensectl_group_commit_writes_sum`], m[`licensectl_group_commit_writes_count`])
	}
	if m[`licensectl_db_size_bytes`] < 32<<10 {
		t.Errorf("licensectl_db_size_bytes = %v", m[`licensectl_db_size_bytes`])
	}
}

func TestMetricsListen(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, func(c *config.Config) { c.Metrics.Listen = "127.0.0.1:0" })
	if s.MetricsURL() == "" {
		t.Fatal("no metrics listener")
	}
	s.Do(t, "GET", "/metrics", nil).WantError(t, http.StatusNotFound, "not_found")
	if m := scrape(t, s, s.MetricsURL()+"/metrics"); m[`licensectl_db_size_bytes`] <= 0 {
		t.Fatalf("metrics on their own listener: %v", m[`licensectl_db_size_bytes`])
	}
	res, err := s.Client.Get(s.MetricsURL() + "/v1/mgmt/applications")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("the metrics listener serves the API: %d", res.StatusCode)
	}
}

// TestGrafanaDashboard keeps docs/grafana-dashboard.json in step with the
// metrics: every licensectl_ series a panel queries must be exported.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	f := newRT(t, func(c *config.Config) { c.RateLimit.Enabled = true })
	f.activate(t, f.license(t, planOpts{}), "fp")
	exported := map[string]bool{}
	for series := range scrape(t, f.s, f.s.URL+"/metrics") {
		name, _, _ := strings.Cut(series, "{")
		exported[name] = true
	}
	used := regexp.MustCompile(`\blicensectl_[a-z_]+`)
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, name := range used.FindAllString(tg.Expr, -1) {
				n++
				if !exported[name] {
					t.Errorf("panel %q queries %s, which the server does not export", p.Title, name)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("the dashboard queries only %d licensectl series", n)
	}
}

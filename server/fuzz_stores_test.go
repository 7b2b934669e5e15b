package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/postgres/pgtest"
)

// storeTwin is one server of FuzzStringInputsOnStores with what its requests
// need: an application and an API key of its organization.
type storeTwin struct {
	name   string
	s      *servertest.Server
	appID  string
	apiKey string
}

// FuzzStringInputsOnStores sends one fuzzed string through the server's
// string inputs (the sign-in e-mail, the list filters, a runtime license
// key and e-mail, an application's name) to a server on bbolt and one on
// PostgreSQL: neither may answer 500, and both must answer alike (status
// and error code, docs/design.md §12). Without PostgreSQL
// (LICENSECTL_TEST_POSTGRES_URL unset) it is skipped: scripts/test runs it
// with the cluster it starts.
func FuzzStringInputsOnStores(f *testing.F) {
	if os.Getenv(pgtest.URLEnv) == "" {
		f.Skipf("SKIP: %s is unset; this target compares bbolt with PostgreSQL", pgtest.URLEnv)
	}
	for _, s := range []string{"owner@example.com", "a\x00b", "\x00", "\xff", "\xc3\x28", "license.created", "%00", "'; DROP TABLE orgs; --", "\u202e", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	var twins []storeTwin
	for _, name := range []string{"bolt", "postgres"} {
		// The test store is chosen by the environment when a server starts.
		f.Setenv(servertest.StoreEnv, name)
		s := servertest.New(f)
		org := s.NewOrg(f)
		app, err := s.Store().CreateApplication(context.Background(), store.CreateApplicationInput{OrgID: org.ID, Name: "Fuzz"})
		if err != nil {
			f.Fatal(err)
		}
		twins = append(twins, storeTwin{name: name, s: s, appID: app.ID, apiKey: org.APIKey})
	}
	// A client of its own: servertest's checks every answer against the
	// OpenAPI document and reports through the F, which a fuzz input may
	// not use.
	client := &http.Client{Timeout: 30 * time.Second}
	f.Fuzz(func(t *testing.T, in string) {
		q := url.QueryEscape(in)
		var n int
		for _, r := range []struct {
			method, path string
			body         any
			runtime      bool
		}{
			{"POST", "/v1/mgmt/auth/login", map[string]any{"email": in, "password": "fuzz password 42"}, false},
			{"GET", "{app}/licenses?user_email=" + q, nil, false},
			{"GET", "{app}/licenses?key=" + q, nil, false},
			{"GET", "{app}/users?email=" + q, nil, false},
			{"GET", "{app}/devices?fingerprint=" + q, nil, false},
			{"GET", "{app}/audit-logs?event=" + q, nil, false},
			{"GET", "{app}/audit-logs?target_id=" + q, nil, false},
			{"GET", "/v1/mgmt/audit-logs?event=" + q, nil, false},
			{"GET", "/v1/mgmt/audit-logs?target_id=" + q, nil, false},
			{"PATCH", "{app}", map[string]any{"name": in}, false},
			{"POST", "/v1/runtime/licenses/activate", map[string]any{"license_key": in, "device_fingerprint": in}, true},
			{"POST", "/v1/runtime/auth/login", map[string]any{"email": in, "password": "fuzz password 42", "device_fingerprint": "fuzz"}, true},
		} {
			var answers []string
			for _, tw := range twins {
				n++
				body := r.body
				if m, ok := body.(map[string]any); ok && r.runtime {
					// A fresh nonce each time, so that a replay is never the answer.
					m = cloneMap(m)
					m["timestamp"] = tw.s.Clock().Now().UTC().Format(time.RFC3339)
					m["nonce"] = fmt.Sprintf("fuzz-nonce-%016d-%s", n, tw.name)
					body = m
				}
				path := strings.Replace(r.path, "{app}", "/v1/mgmt/applications/"+tw.appID, 1)
				answers = append(answers, fuzzSend(t, client, tw, r.method, path, body, r.runtime))
			}
			if answers[0] != answers[1] {
				t.Fatalf("%s %s with %q: bolt answered %s, postgres %s", r.method, r.path, in, answers[0], answers[1])
			}
		}
	})
}

// fuzzSend sends one request to tw and returns its status and error code;
// a 500 fails t.
func fuzzSend(t *testing.T, client *http.Client, tw storeTwin, method, path string, body any, runtime bool) string {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, tw.s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if runtime {
		req.Header.Set("x-application-id", tw.appID)
	} else {
		req.Header.Set("Authorization", "Bearer "+tw.apiKey)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, tw.name, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		t.Fatalf("%s %s on %s: %d %s", method, path, tw.name, res.StatusCode, raw)
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &e) // a success has no error code
	return fmt.Sprintf("%d %s", res.StatusCode, e.Error.Code)
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

package server_test

import (
	"net/http"
	"testing"

	"licensectl/server/servertest"
)

// Issue 19 #8, docs/design.md §7: every API answer carries nosniff, errors too.
func TestNosniffOnAPIAnswers(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	app := newApp(t, s, org.APIKey, "Nosniff App")
	cases := []struct {
		name         string
		method, path string
		key          string
		status       int
	}{
		{"Healthz", "GET", "/healthz", "", http.StatusOK},
		{"OKJSON", "GET", "/v1/mgmt/applications/" + app, org.APIKey, http.StatusOK},
		{"OpenAPI", "GET", "/v1/openapi.json", "", http.StatusOK},
		{"JWKS", "GET", "/v1/runtime/applications/" + app + "/jwks.json", "", http.StatusOK},
		{"ErrUnauthenticated", "GET", "/v1/mgmt/applications", "", http.StatusUnauthorized},
		{"ErrNotFound", "GET", "/v1/mgmt/applications/" + app + "/nothing", org.APIKey, http.StatusNotFound},
		{"ErrMethodNotAllowed", "PUT", "/healthz", "", http.StatusMethodNotAllowed},
		{"ErrRuntime", "POST", "/v1/runtime/sessions/validate", "", http.StatusUnauthorized},
		{"ErrValidation", "POST", "/v1/mgmt/applications", org.APIKey, http.StatusBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.method == "POST" {
				body = map[string]any{"name": ""}
			}
			r := s.As(t, c.key, c.method, c.path, body)
			if r.Status != c.status {
				t.Fatalf("status %d %s, want %d", r.Status, r.Body, c.status)
			}
			if got := r.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
				t.Fatalf("X-Content-Type-Options = %q, want [nosniff]", got)
			}
		})
	}
}

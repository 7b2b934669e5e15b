package server_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/servertest"
)

// TestOpenAPIDocument keeps server/openapi.json (embedded and served; docs/
// links to it) equal to what the code generates, checks the document is
// valid OpenAPI 3.1, that the server serves it, and that it describes exactly
// the routes the server has.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, func(c *config.Config) { c.Metrics.Enabled, c.Metrics.Listen = true, "" })
	var routes []string
	err := s.Handler().(*mux.Router).Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, perr := r.GetPathTemplate()
		methods, merr := r.GetMethods()
		if perr != nil || merr != nil {
			return nil
		}
		// A prefix route (the static files) matches below its path; an
		// exact route ending in / (the account index) only itself.
		if re, err := r.GetPathRegexp(); err == nil && !strings.HasSuffix(re, "$") {
			path += "{file}"
		}
		for _, m := range methods {
			routes = append(routes, m+" "+path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The router is built from the table: the same operations in the same
	// order, none added beside it.
	if table := server.RouteTable(); !slices.Equal(routes, table) {
		t.Fatalf("the router's routes differ from the table's:\nrouter: %v\ntable:  %v", routes, table)
	}
	want, err := server.GenerateOpenAPI()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if got, err := os.ReadFile("openapi.json"); err != nil || string(got) != string(want) {
		if !*server.UpdateDocs {
			t.Errorf("openapi.json differs from the document the code generates: run scripts/openapi")
		} else if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One copy is kept: docs/openapi.json, where readers and the linter look,
	// is a link to the embedded one, so the two cannot drift apart and the
	// repository does not carry the document twice.
	if target, err := os.Readlink("../docs/openapi.json"); err != nil || target != "../server/openapi.json" {
		t.Errorf("docs/openapi.json: want a symbolic link to ../server/openapi.json, got %q (%v)", target, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(want)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v", err)
	}
	if got := doc.Paths.Len(); got < 60 {
		t.Fatalf("the document has %d paths", got)
	}
	// The served document is the one the repository holds (after -update,
	// once the binary embeds the new one).
	if served := s.Do(t, "GET", "/v1/openapi.json", nil).Want(t, 200).Body; string(served) != string(want) && !*server.UpdateDocs {
		t.Fatalf("GET /v1/openapi.json serves another document than server/openapi.json (%d bytes, want %d)", len(served), len(want))
	}
}

package server_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
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

// TestOpenAPIForGenerators holds the document to what code generators need
// to make readable clients: every object a request or an answer carries is
// a named component referred to with $ref (an inline object becomes an
// anonymous struct in oapi-codegen's output), every $ref resolves, and every
// operation documents a 4XX answer (Redocly's operation-4xx-response rule).
// scripts/openapi-codegen runs oapi-codegen itself on the document.
func TestOpenAPIForGenerators(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(server.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range []string{"LicenseDetail", "LicenseItem", "LicenseItemPage", "ActivateRequest", "Activated", "RuntimeSession", "ErrorBody", "Webhook"} {
		if _, ok := schemas[name]; !ok {
			t.Errorf("no component schema %s", name)
		}
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name, found := strings.CutPrefix(ref, "#/components/schemas/")
				if _, ok := schemas[name]; found && !ok {
					t.Errorf("%s: $ref %s names no component", at, ref)
				}
			}
			if _, ok := v["properties"]; ok && !strings.HasPrefix(at, "/components/schemas/") {
				t.Errorf("%s: an inline object schema, not a named component", at)
			}
			for k, x := range v {
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "")
	responses, _ := doc["components"].(map[string]any)["responses"].(map[string]any)
	// A parameter three operations declare alike is a component they refer to.
	inline := map[string]int{}
	for _, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			params, _ := op.(map[string]any)["parameters"].([]any)
			for _, p := range params {
				if _, ok := p.(map[string]any)["$ref"]; !ok {
					b, _ := json.Marshal(p)
					inline[string(b)]++
				}
			}
		}
	}
	for p, n := range inline {
		if n >= 3 {
			t.Errorf("%d operations declare the parameter %s inline, want a component", n, p)
		}
	}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			has4xx := false
			for status, resp := range op.(map[string]any)["responses"].(map[string]any) {
				has4xx = has4xx || strings.HasPrefix(status, "4")
				// Error answers are shared components, referred to: inline,
				// the same few were most of the document.
				if strings.HasPrefix(status, "4") || strings.HasPrefix(status, "5") {
					ref, _ := resp.(map[string]any)["$ref"].(string)
					name, found := strings.CutPrefix(ref, "#/components/responses/")
					if _, ok := responses[name]; !found || !ok {
						t.Errorf("%s %s %s: want a $ref to a component response, got %v", strings.ToUpper(method), path, status, resp)
					}
				}
			}
			if !has4xx {
				t.Errorf("%s %s documents no 4XX answer", strings.ToUpper(method), path)
			}
		}
	}
}

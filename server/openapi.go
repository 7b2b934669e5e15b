package server

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 document of the whole API. It is generated
// from the wire types and the operation table by `go test ./server -run
// TestOpenAPIDocument -update` (scripts/openapi); the test fails when the
// file differs from what the code generates. docs/openapi.json is a link to
// it, so the repository keeps one copy.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI document as JSON.
func OpenAPI() []byte { return openAPIDoc }

// serveOpenAPI answers GET /v1/openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	_, err := w.Write(openAPIDoc)
	return err
}

package server

import "net/http"

// apiOps is the operation table of the OpenAPI document: every route the
// server registers, with its credential, parameters and body types.
func apiOps() []apiOp {
	page := []apiParam{{name: "page", typ: "integer", desc: "page number, from 1"}, {name: "per_page", typ: "integer", desc: "items per page, 1–100 (default 20)"}}
	_ = page
	return []apiOp{
		{method: http.MethodGet, path: "/healthz", tag: "operations", summary: "The process is up", status: 200, resp: map[string]string{}},
		{method: http.MethodGet, path: "/readyz", tag: "operations", summary: "The store can serve", status: 200, resp: map[string]string{}},
		{method: http.MethodGet, path: "/metrics", tag: "operations", summary: "Prometheus metrics", status: 200, contentType: "text/plain"},
		{method: http.MethodGet, path: "/v1/openapi.json", tag: "operations", summary: "This document", status: 200, resp: map[string]any{}},
	}
}

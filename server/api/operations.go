package api

import "encoding/json"

// Health answers GET /healthz and GET /readyz.
type Health struct {
	Status string `json:"status"`
}

// OpenAPIDocument is the top level of GET /v1/openapi.json, an OpenAPI 3.1
// document (https://spec.openapis.org/oas/v3.1.0); its parts are described
// by that specification, not here.
type OpenAPIDocument struct {
	OpenAPI    string          `json:"openapi"`
	Info       json.RawMessage `json:"info"`
	Servers    json.RawMessage `json:"servers"`
	Paths      json.RawMessage `json:"paths"`
	Components json.RawMessage `json:"components"`
}

package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"licensectl/server"
)

// Validated counts the responses checked against the OpenAPI document by
// every server of the test binary; Refused counts the requests among them
// that the document refuses (each answered with an error, or the test fails).
var Validated, Refused atomic.Int64

func init() {
	// The document's non-JSON answers: the key set is JSON under its own
	// media type; backups are bytes; pages are text.
	openapi3filter.RegisterBodyDecoder("application/jwk-set+json", openapi3filter.JSONBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/octet-stream", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.FileBodyDecoder)
}

// loadDoc parses the server's embedded document once per test binary.
var loadDoc = sync.OnceValues(func() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(server.OpenAPI())
})

// validatingTransport checks every response a test receives against the
// OpenAPI document, so the document cannot drift from what the server does:
// the status must be documented for the operation (or be an error in the
// documented error shape) and the body must match its schema.
type validatingTransport struct {
	tb     testing.TB
	base   http.RoundTripper
	router routers.Router
	host   string // the server's; requests elsewhere (metrics.listen) pass unchecked
}

func newValidatingTransport(tb testing.TB, baseURL string) http.RoundTripper {
	tb.Helper()
	doc, err := loadDoc()
	if err != nil {
		tb.Fatalf("load the OpenAPI document: %v", err)
	}
	// A copy with this server's address, so the router matches its URLs.
	d := *doc
	d.Servers = openapi3.Servers{{URL: baseURL}}
	r, err := gorillamux.NewRouter(&d)
	if err != nil {
		tb.Fatalf("route the OpenAPI document: %v", err)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		tb.Fatal(err)
	}
	return &validatingTransport{tb: tb, base: http.DefaultTransport, router: r, host: u.Host}
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.URL.Host == v.host {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := v.base.RoundTrip(req)
	if err != nil || req.URL.Host != v.host {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return resp, nil // the test sees the truncated body and fails on it
	}
	if verr := v.validate(req, reqBody, resp, body); verr != nil {
		v.tb.Errorf("OpenAPI: %s %s (%d) does not match the document: %v\nrequest: %.1000s\nanswer: %.2000s", req.Method, req.URL.Path, resp.StatusCode, verr, reqBody, body)
	}
	Validated.Add(1)
	return resp, nil
}

// validate checks the request and the answer against the document. Tests
// send wrong requests on purpose, so a request the document refuses is no
// failure in itself; but the server must refuse it too: a success answer to
// such a request means the document asks more (or other) than the server
// does, and a client written from it would be wrong.
func (v *validatingTransport) validate(req *http.Request, reqBody []byte, resp *http.Response, body []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil && len(req.URL.Path) > 1 && strings.HasSuffix(req.URL.Path, "/") {
		// OpenAPI paths carry no trailing slash: a path the server also
		// serves with one (/account/) is documented once, without it.
		trimmed := req.Clone(req.Context())
		trimmed.URL.Path = strings.TrimSuffix(req.URL.Path, "/")
		route, params, err = v.router.FindRoute(trimmed)
	}
	if err != nil {
		// No operation: an unknown path or method, which must be answered
		// with an error in the shape of the API it addressed.
		if resp.StatusCode < 400 {
			return fmt.Errorf("status %d for a request the document has no operation for (%v)", resp.StatusCode, err)
		}
		if strings.HasPrefix(req.URL.Path, "/portal/") || strings.HasPrefix(req.URL.Path, "/account/") {
			// The pages answer people: their error is a page.
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				return fmt.Errorf("a page's error is %s, not a page", ct)
			}
			return nil
		}
		return errorShape(req.URL.Path, body)
	}
	sent := req.Clone(context.Background())
	sent.Body = io.NopCloser(bytes.NewReader(reqBody))
	reqIn := &openapi3filter.RequestValidationInput{Request: sent, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: credentialSent}}
	if rerr := openapi3filter.ValidateRequest(context.Background(), reqIn); rerr != nil {
		Refused.Add(1)
		if resp.StatusCode < 400 {
			return fmt.Errorf("the server accepted (%d) a request the document refuses: %v", resp.StatusCode, rerr)
		}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && len(body) == 0 {
		in.Options.ExcludeResponseBody = true
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// credentialSent checks that a request carries the credential a security
// scheme names: whether it is valid is the server's to say.
func credentialSent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	s := in.SecurityScheme
	switch {
	case s.Type == "apiKey" && s.In == "header":
		if strings.TrimSpace(h.Get(s.Name)) == "" {
			return fmt.Errorf("no %s header", s.Name)
		}
	case s.Type == "http" && s.Scheme == "bearer":
		scheme, cred, _ := strings.Cut(h.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(cred) == "" {
			return fmt.Errorf("no bearer credential")
		}
	default:
		return fmt.Errorf("security scheme %s is not checked here", in.SecuritySchemeName)
	}
	return nil
}

// errorShape checks an error body: {"error":{...}} with the runtime's two
// fields or the management's six.
func errorShape(path string, body []byte) error {
	var b map[string]map[string]any
	if err := json.Unmarshal(body, &b); err != nil || len(b) != 1 || b["error"] == nil {
		return fmt.Errorf("not an error body: %.200s", body)
	}
	want := []string{"action", "code", "message", "reason", "retry_after_seconds", "title"}
	if strings.HasPrefix(path, "/v1/runtime") {
		want = []string{"code", "message"}
	}
	if len(b["error"]) != len(want) {
		return fmt.Errorf("error fields %v, want %v", b["error"], want)
	}
	for _, k := range want {
		if _, ok := b["error"][k]; !ok {
			return fmt.Errorf("error lacks %s", k)
		}
	}
	return nil
}

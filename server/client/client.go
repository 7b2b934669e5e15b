// Package client is the remote implementation of store.Admin: it calls a
// licensectl server's management and operator APIs over HTTP and turns error
// bodies back into *store.Error, so the admin CLI and TUI behave the same
// whether they open the data file or talk to a server.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"licensectl/server/api"
	"licensectl/store"
)

// Client calls one server with one credential: a developer API key, an
// application secret or the operator token. With the operator token, calls
// that take an organization id send it as x-organization-id.
type Client struct {
	base      string
	token     string
	http      *http.Client
	userAgent string
}

var _ store.Admin = (*Client)(nil)

// Option adjusts a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client (default: 60 s timeout).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client for the server at baseURL (scheme and host, e.g.
// http://127.0.0.1:8080) authenticating with token.
func New(baseURL, token string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), token: token, http: &http.Client{Timeout: 60 * time.Second}, userAgent: "licensectl-client"}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL is the server address the client talks to.
func (c *Client) BaseURL() string { return c.base }

// call describes one request.
type call struct {
	method string
	path   string
	org    string // x-organization-id, when not empty
	env    string // x-environment, when not empty
	query  url.Values
	body   any
}

// request builds the HTTP request of cl.
func (c *Client) request(ctx context.Context, cl call) (*http.Request, error) {
	var rd io.Reader
	if cl.body != nil {
		raw, err := json.Marshal(cl.body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(raw)
	}
	u := c.base + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, rd)
	if err != nil {
		return nil, store.Errorf(store.ECodeValidation, "bad server address %q: %v", c.base, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if cl.org != "" {
		req.Header.Set("x-organization-id", cl.org)
	}
	if cl.env != "" {
		req.Header.Set("x-environment", cl.env)
	}
	return req, nil
}

// send performs the request and returns the response when its status is 2xx;
// any other status becomes the *store.Error of its body.
func (c *Client) send(ctx context.Context, cl call) (*http.Response, error) {
	return c.sendWith(ctx, c.http, cl)
}

// sendWith is send through a given HTTP client.
func (c *Client) sendWith(ctx context.Context, hc *http.Client, cl call) (*http.Response, error) {
	req, err := c.request(ctx, cl)
	if err != nil {
		return nil, err
	}
	res, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &store.Error{Code: store.ECodeUnavailable, Message: "cannot reach the server at " + c.base, Err: unwrapURLError(err)}
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		defer res.Body.Close()
		return nil, decodeError(res)
	}
	return res, nil
}

// do performs cl and decodes a 2xx JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	res, err := c.send(ctx, cl)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return &store.Error{Code: store.ECodeInternal, Message: fmt.Sprintf("unexpected answer to %s %s", cl.method, cl.path), Err: err}
	}
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// decodeError turns an error response into the *store.Error the server
// reported. A body that is not the server's (a proxy's page) is mapped from
// the status alone.
func decodeError(res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	// The runtime body is a subset of this one.
	var body api.ErrorBody
	if err := json.Unmarshal(raw, &body); err == nil && body.Error.Code != "" {
		return &store.Error{Code: body.Error.Code, Message: body.Error.Message, RetryAfter: body.Error.RetryAfterSeconds}
	}
	return &store.Error{Code: codeOfStatus(res.StatusCode), Message: fmt.Sprintf("server answered %s", res.Status)}
}

// codeOfStatus is the generic code of an HTTP status.
func codeOfStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return store.ECodeValidation
	case http.StatusUnauthorized:
		return store.ECodeUnauthenticated
	case http.StatusForbidden:
		return store.ECodeForbidden
	case http.StatusNotFound:
		return store.ECodeNotFound
	case http.StatusMethodNotAllowed:
		return store.ECodeMethod
	case http.StatusConflict:
		return store.ECodeConflict
	case http.StatusRequestEntityTooLarge:
		return store.ECodeBodyTooLarge
	case http.StatusTooManyRequests:
		return store.ECodeRateLimited
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return store.ECodeUnavailable
	}
	return store.ECodeInternal
}

// p joins path segments, escaping each.
func p(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		if strings.HasPrefix(s, "/") {
			b.WriteString(strings.TrimPrefix(s, "/"))
			continue
		}
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// appPath is the path of an application's sub-resource.
func appPath(appID string, rest ...string) string {
	return p(append([]string{"/v1/mgmt/applications", appID}, rest...)...)
}

// setIf sets the query parameter name when value is not empty: an empty
// filter means "any", which the server reads from its absence.
func setIf(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

// pageQuery encodes page, per_page and cursor when set.
func pageQuery(q url.Values, pr store.PageRequest) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if pr.Page != 0 {
		q.Set("page", fmt.Sprint(pr.Page))
	}
	if pr.PerPage != 0 {
		q.Set("per_page", fmt.Sprint(pr.PerPage))
	}
	setIf(q, "cursor", pr.Cursor)
	return q
}

// mapList maps a slice through fn.
func mapList[S, T any](in []S, fn func(S) T) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		out = append(out, fn(v))
	}
	return out
}

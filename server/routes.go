package server

import (
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/store"
)

// routes builds the router from the route table (routetable.go), the same
// table the OpenAPI document is generated from.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	r.Use(s.observe)
	noEndpoint := s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return store.Errorf(store.ECodeNotFound, "no such endpoint")
	})
	unmatched := s.pagesOr(noEndpoint)
	notFound := s.observe(unmatched) // unmatched requests skip r.Use
	notAllowed := s.observe(s.wrap(func(w http.ResponseWriter, req *http.Request) error {
		w.Header().Set("Allow", strings.Join(allowedMethods(r, req), ", "))
		return store.Errorf(store.ECodeMethod, "method %s is not allowed here", req.Method)
	}))
	r.NotFoundHandler, r.MethodNotAllowedHandler = notFound, notAllowed
	// The API never redirects: mux would answer a path with "." or ".."
	// segments (also percent-encoded) with a 301 to the cleaned path, and a
	// client following it would act on the parent resource — a DELETE of
	// …/entitlements/%2e%2e would delete the application. Such paths are
	// no resource at all.
	r.SkipClean(true)
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool { return hasDotSegment(req.URL.Path) }).Handler(unmatched)
	// net/http passes a query with a malformed escape (`?page=%zz`) to the
	// handler, and url.Values drops the pair silently: the API would answer
	// as if the parameter were absent. It names the parameter instead.
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
		return checksQuery(req.URL.Path) && badQueryParam(req.URL.RawQuery) != ""
	}).Handler(s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		name := badQueryParam(r.URL.RawQuery)
		return store.Invalid(name, "query parameter %s is malformed (a bad %%-escape or a semicolon)", name)
	}))

	// The table's order is the router's: gorilla/mux tries routes in order,
	// and the runtime's hot endpoints come first so that they do not pay for
	// matching every management pattern (the prefixes do not overlap).
	for _, rt := range routeTable() {
		if rt.when != nil && !rt.when(s) {
			continue
		}
		h := s.handlerOf(rt)
		if rt.method != http.MethodGet && rt.method != http.MethodHead {
			// Every route that may be shed shows on the metrics page from
			// the start, at 0, so a dashboard and an alert can rely on the
			// series before the first shed request.
			s.metrics.shed.WithLabelValues(rt.path)
		}
		if rt.prefix {
			r.PathPrefix(strings.TrimSuffix(rt.path, "{file}")).Handler(h).Methods(rt.method)
			continue
		}
		r.Handle(rt.path, h).Methods(rt.method)
	}
	return r
}

// pagesOr answers an unmatched address under the pages' prefixes with a
// "Page not found" page, with the pages' headers, and any other with api:
// a person followed a link there, and the API's JSON error would be
// gibberish to them (and lack the pages' CSP).
func (s *Server) pagesOr(api http.Handler) http.Handler {
	portal := withPageHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderPortal(w, http.StatusNotFound, "message", portalPage{Title: "Page not found", Tone: "bad",
			Message: "There is no page at this address. Check the link your vendor gave you."})
	}))
	account := withPageHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderPage(w, http.StatusNotFound, "message", page{Title: "Page not found", Tone: "bad",
			Message: "There is no page at this address. Check the link you followed.", Home: true})
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/portal/"):
			portal.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, "/account/"):
			account.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// checksQuery says whether the router refuses a malformed query on path:
// every path whose errors are JSON (the API and the health checks), so that
// no operation answers as if a garbled parameter were absent. The pages
// answer people in HTML and the static files and metrics read no query.
func checksQuery(path string) bool {
	return strings.HasPrefix(path, "/v1/") || path == "/healthz" || path == "/readyz"
}

// allowedMethods lists the methods router serves at req's path, for the
// Allow header a 405 answer carries (RFC 9110 §15.5.6, docs/design.md §7).
func allowedMethods(router *mux.Router, req *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := req.Clone(req.Context())
		probe.Method = m
		var match mux.RouteMatch
		if router.Match(probe, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	return out
}

// hasDotSegment reports a "." or ".." segment in a (decoded) path.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// badQueryParam returns the name (as sent) of the first query parameter
// that does not decode, or "" when the whole query does.
func badQueryParam(raw string) string {
	if raw == "" {
		return ""
	}
	if _, err := url.ParseQuery(raw); err == nil {
		return ""
	}
	for pair := range strings.SplitSeq(raw, "&") {
		k, v, _ := strings.Cut(pair, "=")
		_, errK := url.QueryUnescape(k)
		_, errV := url.QueryUnescape(v)
		if errK != nil || errV != nil || strings.Contains(pair, ";") {
			return k
		}
	}
	return raw
}

// ready answers GET /readyz: ready while the store answers.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.Ping(r.Context()); err != nil {
		return &store.Error{Code: store.ECodeUnavailable, Message: "store unavailable", Err: err}
	}
	writeJSON(w, http.StatusOK, api.Health{Status: "ready"})
	return nil
}

// staticFiles serves the account pages' style sheets and scripts.
func staticFiles() http.Handler {
	static, _ := fs.Sub(pagesStatic, "pages/static")
	return withPageHeaders(http.StripPrefix("/account/static/", http.FileServer(http.FS(static))))
}

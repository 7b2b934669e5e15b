package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"licensectl/store"
)

// routes builds the router. Each aggregate registers its own routes from the
// file that holds its handlers.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	r.Use(s.observe)
	noEndpoint := s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return store.Errorf(store.ECodeNotFound, "no such endpoint")
	})
	notFound := s.observe(noEndpoint) // unmatched requests skip r.Use
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
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool { return hasDotSegment(req.URL.Path) }).Handler(noEndpoint)
	// net/http passes a query with a malformed escape (`?page=%zz`) to the
	// handler, and url.Values drops the pair silently: the API would answer
	// as if the parameter were absent. It names the parameter instead.
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
		return strings.HasPrefix(req.URL.Path, "/v1/") && badQueryParam(req.URL.RawQuery) != ""
	}).Handler(s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		name := badQueryParam(r.URL.RawQuery)
		return store.Invalid(name, "query parameter %s is malformed (a bad %%-escape or a semicolon)", name)
	}))

	r.Handle("/healthz", s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	})).Methods(http.MethodGet)
	r.Handle("/readyz", s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		if err := s.db.Ping(r.Context()); err != nil {
			return &store.Error{Code: store.ECodeUnavailable, Message: "store unavailable", Err: err}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return nil
	})).Methods(http.MethodGet)
	r.Handle("/v1/openapi.json", s.wrap(s.serveOpenAPI)).Methods(http.MethodGet)
	if s.cfg.Metrics.Enabled && s.cfg.Metrics.Listen == "" {
		r.Handle("/metrics", s.metrics.handler()).Methods(http.MethodGet)
	}

	// The runtime API goes first: gorilla/mux tries routes in order, and the
	// runtime's hot endpoints should not pay for matching every management
	// pattern. The prefixes do not overlap, so order changes nothing else.
	rt := group{r, "/v1/runtime"}
	s.registerRuntimeRoutes(rt)

	m := group{r, "/v1/mgmt"}
	s.registerAccountRoutes(m)
	s.registerOrganizationRoutes(m)
	s.registerApplicationRoutes(m)
	s.registerCredentialRoutes(m)
	s.registerCatalogRoutes(m)
	s.registerLicenseRoutes(m)
	s.registerEndUserRoutes(m)
	s.registerSessionCountRoutes(m)
	s.registerAuditRoutes(m)
	s.registerWebhookRoutes(m)

	s.registerAdminRoutes(group{r, "/v1/admin"})
	s.registerBillingRoutes(m, group{r, "/v1/admin"}, group{r, "/v1/billing"})
	s.registerOnboardingRoutes(m)
	s.registerAccountPages(r)
	return r
}

// group registers routes under a path prefix on the root router. gorilla/mux
// subrouters lose a method mismatch (405 becomes 404), so none are used.
type group struct {
	r      *mux.Router
	prefix string
}

// Handle registers h for prefix+path.
func (g group) Handle(path string, h http.Handler) *mux.Route {
	return g.r.Handle(g.prefix+path, h)
}

// allowedMethods lists the methods router serves at req's path, for the
// Allow header a 405 answer carries (RFC 9110 §15.5.6, design.md §7).
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

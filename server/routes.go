package server

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"licensectl/store"
)

// routes builds the router. Each aggregate registers its own routes from the
// file that holds its handlers.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	r.Use(s.observe)
	notFound := s.observe(s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return store.Errorf(store.ECodeNotFound, "no such endpoint")
	}))
	notAllowed := s.observe(s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return store.Errorf(store.ECodeMethod, "method %s is not allowed here", r.Method)
	}))
	r.NotFoundHandler, r.MethodNotAllowedHandler = notFound, notAllowed
	// gorilla/mux would clean `..`, `.` and `//` into a 301 to another
	// resource, which a redirect-following client then acts on (a DELETE of
	// an entitlement `..` became a DELETE of the application). The API never
	// redirects: such paths match nothing.
	r.SkipClean(true)
	r.MatcherFunc(func(r *http.Request, _ *mux.RouteMatch) bool { return uncleanPath(r.URL.Path) }).Handler(notFound)

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
	s.registerAuditRoutes(m)
	s.registerWebhookRoutes(m)

	s.registerAdminRoutes(group{r, "/v1/admin"})
	s.registerBillingRoutes(m, group{r, "/v1/admin"}, group{r, "/v1/billing"})
	s.registerOnboardingRoutes(m)
	s.startBillingSweeper()
	s.registerAccountPages(r)
	return r
}

// uncleanPath reports a path with an empty, `.` or `..` segment (after
// percent-decoding, so `%2e%2e` counts); a trailing slash is no segment.
func uncleanPath(p string) bool {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
	if p == "" {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return true
		}
	}
	return false
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

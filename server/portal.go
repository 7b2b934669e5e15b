package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"licensectl/store"
)

// The self-service portal (docs/design.md §17): server-rendered pages where
// a vendor's customer signs in with their end-user account and frees a
// seat. They are the account pages' kin: the same headers and style, forms
// that work without script, a GET that never changes anything. Unlike them
// they keep a session, in a cookie, so every form carries a CSRF token.

//go:embed pages/portal.html
var portalFS embed.FS

var portalTmpl = template.Must(template.ParseFS(portalFS, "pages/portal.html"))

// Cookies of the portal, both scoped to /portal/: the session's token, and
// the token the sign-in forms carry before there is a session.
const (
	portalSessionCookie = "licensectl_portal"
	portalCSRFCookie    = "licensectl_portal_csrf"
)

// portalPage is what the portal's templates show.
type portalPage struct {
	Title   string
	App     portalApp
	Message string
	Tone    string // ok or bad
	// CSRF is the token every form posts back.
	CSRF string
	// Email is the signed-in customer's address; "" before sign-in.
	Email string
	// Token is a mailed sign-in link's, on the page that spends it.
	Token string
	// Challenge: the account's logins need a solved challenge.
	Challenge bool
	Licenses  []portalLicense
	// License and Device are the confirmation page's.
	License *portalLicense
	Device  *portalDevice
	// Location answers the request with a redirect (303) instead.
	Location string
}

// portalApp heads every page: the application's name and support address,
// and the base of its portal's addresses.
type portalApp struct {
	Name, SupportEmail, Base string
}

// portal is what the wrapper resolved for a handler: the application and
// environment of the address, and the customer when signed in.
type portal struct {
	scope   store.PortalScope
	ra      *store.RuntimeApp
	user    *store.EndUser
	session string // the session cookie's token, when it names a live session
	csrf    string // the token the page's forms carry
}

// portalFunc is a portal page's handler.
type portalFunc func(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage)

// portalCall wraps a portal page: the pages' headers and per-address limit,
// the application (unknown or disabled: a plain 404 page), the session, and
// on a POST the CSRF check, before fn.
func (s *Server) portalCall(fn portalFunc) http.Handler {
	return withPageHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.pageAllowed(w, r) {
			s.renderPortal(w, http.StatusTooManyRequests, "message", portalPage{Title: "Too many attempts", Tone: "bad",
				Message: "There were too many attempts from your address. Wait a minute, then try again."})
			return
		}
		r = r.WithContext(pageActor(r))
		p, err := s.portalOf(w, r)
		if err != nil {
			status, name, pg := s.portalFailed(r, err)
			s.renderPortal(w, status, name, pg)
			return
		}
		if p == nil {
			s.renderPortal(w, http.StatusNotFound, "message", portalPage{Title: "Page not found", Tone: "bad",
				Message: "There is no customer portal at this address. Check the link your vendor gave you."})
			return
		}
		head := portalApp{Name: p.ra.App.Name, SupportEmail: p.ra.App.SupportEmail, Base: portalBase(p.ra)}
		var status int
		var name string
		var pg portalPage
		if r.Method == http.MethodPost && (p.csrf == "" || !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(p.csrf))) {
			status, name, pg = http.StatusForbidden, "message", portalPage{Title: "This form has expired", Tone: "bad",
				Message: "The form was not sent from this page, or it is too old. Open the page again and repeat what you did."}
		} else {
			status, name, pg = fn(w, r, p)
		}
		if pg.Location != "" {
			w.Header().Set("Location", pg.Location)
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		pg.App, pg.CSRF = head, p.csrf
		if p.user != nil {
			pg.Email = p.user.Email
		}
		s.renderPortal(w, status, name, pg)
	}))
}

// portalOf resolves the address's application and environment (production
// when the address names none) and the session of the request's cookie,
// and makes sure the browser holds a CSRF token for the sign-in forms. It
// returns nil for an unknown or disabled application.
func (s *Server) portalOf(w http.ResponseWriter, r *http.Request) (*portal, error) {
	v := mux.Vars(r)
	ps := store.PortalScope{AppID: v["app_id"], Env: v["environment"]}
	if ps.Env == "" {
		ps.Env = store.EnvProduction
	}
	if !store.ValidEnv(ps.Env) || store.CheckID("app_id", ps.AppID) != nil {
		return nil, nil
	}
	ra, err := s.rt.store.ResolveApp(r.Context(), store.RuntimeClient{AppID: ps.AppID, Env: ps.Env})
	if store.ErrorCode(err) == store.ECodeInvalidApp || (err == nil && ra.App.Status != store.AppActive) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := &portal{scope: ps, ra: ra}
	if c, err := r.Cookie(portalSessionCookie); err == nil && c.Value != "" {
		u, err := s.db.PortalSessionUser(r.Context(), ps, c.Value)
		switch store.ErrorCode(err) {
		case "":
			p.user, p.session = u, c.Value
		case store.ECodeInvalidToken: // ended: signed out
		default:
			return nil, err
		}
	}
	if p.session != "" {
		p.csrf = sessionCSRF(p.session)
		return p, nil
	}
	if c, err := r.Cookie(portalCSRFCookie); err == nil && len(c.Value) == 64 {
		p.csrf = c.Value
	} else if r.Method == http.MethodGet {
		p.csrf = newCSRF()
		http.SetCookie(w, portalCookie(r, portalCSRFCookie, p.csrf, 0))
	}
	return p, nil
}

// newCSRF is a fresh random token for the sign-in forms.
func newCSRF() string {
	h := sha256.Sum256([]byte(store.NewSecret("")))
	return hex.EncodeToString(h[:])
}

// sessionCSRF is the CSRF token of a session: derived from the session's
// secret, which only the browser's HttpOnly cookie holds, so another site
// can neither read nor compute it.
func sessionCSRF(session string) string {
	m := hmac.New(sha256.New, []byte(session))
	m.Write([]byte("licensectl portal csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

// portalCookie is a cookie of the portal: HttpOnly, SameSite=Strict, Secure
// when the request came over TLS, for maxAge seconds (0: the browser's
// session; negative: remove it).
func portalCookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/portal/", MaxAge: maxAge, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode}
}

// portalBase is the address of an environment's portal, without a
// trailing slash.
func portalBase(ra *store.RuntimeApp) string {
	return "/portal/" + url.PathEscape(ra.App.ID) + "/" + ra.Env.Name
}

func (s *Server) renderPortal(w http.ResponseWriter, status int, name string, p portalPage) {
	s.renderTemplate(w, portalTmpl, status, name, p)
}

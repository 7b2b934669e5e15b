package server

import (
	"context"
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"licensectl/store"
)

// The account pages that the links in mails open (docs/design.md §8, issue 12):
// plain server-rendered HTML, a few lines of script of our own, nothing from
// elsewhere. A GET never spends a token — mail scanners open links before
// people do — it shows a form that POSTs back and works without script.

//go:embed pages/pages.html
var pagesFS embed.FS

//go:embed pages/static
var pagesStatic embed.FS

var pageTmpl = template.Must(template.ParseFS(pagesFS, "pages/pages.html"))

// accountTOSVersion is the version of the terms the complete-profile form
// has the user accept.
const accountTOSVersion = "1"

// pageHeaders are sent with every account page and asset: nothing but our
// own script and style runs, forms post only here, and the token in the
// address never leaves in a Referer.
var pageHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"Referrer-Policy":        "no-referrer",
	"X-Content-Type-Options": "nosniff",
	"X-Frame-Options":        "DENY",
	"Cache-Control":          "no-store",
}

// page is what the templates show.
type page struct {
	Title      string
	Message    string
	Tone       string // ok or bad
	Next       string
	Token      string
	TOSVersion string
	// Home links the account index, where the next steps are.
	Home bool
	// Action and Button are a mail form's (forgot-password,
	// resend-verification).
	Action, Button string
	// Partner is set when partner sign-in is configured.
	Partner bool
}

func withPageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range pageHeaders {
			w.Header().Set(k, v)
		}
		next.ServeHTTP(w, r)
	})
}

// pageCall applies the account calls' per-address limit and renders what a
// page handler returns. Errors become a page too, never JSON; their causes
// are logged without the address, which may hold a token.
func (s *Server) pageCall(fn func(r *http.Request) (int, string, page)) http.Handler {
	return withPageHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.pageAllowed(w, r) {
			s.renderPage(w, http.StatusTooManyRequests, "message", page{Title: "Too many attempts", Tone: "bad",
				Message: "There were too many attempts from your address. Wait a minute, then try again."})
			return
		}
		status, name, p := fn(r.WithContext(pageActor(r)))
		s.renderPage(w, status, name, p)
	}))
}

// pageAllowed takes one request of the client's address from the account
// calls' limit, and otherwise sets Retry-After and reports false.
func (s *Server) pageAllowed(w http.ResponseWriter, r *http.Request) bool {
	lim := s.acct.perIP
	if lim == nil {
		return true
	}
	err := lim.take(w, clientKey(r), "too many requests")
	if e := store.AsError(err); e != nil && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	return err == nil
}

// pageActor is the request's context with the audit actor of a page: the
// system, from the client's address (the store names the person once it
// knows them).
func pageActor(r *http.Request) context.Context {
	return store.WithActor(r.Context(), store.Actor{Type: store.ActorSystem, IP: clientIP(r), UserAgent: r.UserAgent()})
}

func (s *Server) renderPage(w http.ResponseWriter, status int, name string, p page) {
	s.renderTemplate(w, pageTmpl, status, name, p)
}

// renderTemplate writes the page name of tmpl shows of data, or a plain
// error page when it does not render (logged).
func (s *Server) renderTemplate(w http.ResponseWriter, tmpl *template.Template, status int, name string, data any) {
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		s.logger.Error("render page", "page", name, "err", err)
		status, b = http.StatusInternalServerError, strings.Builder{}
		b.WriteString("<!doctype html><title>Error</title><p>Something went wrong. Try again later.</p>")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if rec, ok := w.(*statusRecorder); ok && status >= 400 {
		rec.code = "page"
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// failed is the page for an unexpected error; the cause is logged.
func (s *Server) failed(r *http.Request, err error) (int, string, page) {
	s.logger.Error("account page", "request_id", requestIDFrom(r.Context()), "path", r.URL.Path, "err", err)
	status := StatusOf(store.ErrorCode(err))
	if status < 500 {
		status = http.StatusInternalServerError
	}
	return status, "message", page{Title: "Something went wrong", Tone: "bad", Message: "Something went wrong on our side. Try again in a few minutes."}
}

// tokenOf reads the token of a page request: the query of a GET, the form
// of a POST.
func tokenOf(r *http.Request) string {
	if r.Method == http.MethodPost {
		return strings.TrimSpace(r.PostFormValue("token"))
	}
	return strings.TrimSpace(r.URL.Query().Get("token"))
}

// refusedLink explains in plain words why a link of kind k does not work.
func (s *Server) refusedLink(r *http.Request, token string, k linkKind) (int, string, page) {
	refused := func(status int, msg string) (int, string, page) {
		return status, "message", page{Title: k.title, Tone: "bad", Message: msg, Next: k.again, Home: true}
	}
	if token == "" {
		return refused(http.StatusBadRequest, "This link is incomplete. Open the link from the mail again, or copy all of it into the address bar.")
	}
	state, err := s.db.MailTokenState(r.Context(), token, k.purpose)
	if err != nil {
		return s.failed(r, err)
	}
	switch state {
	case store.TokenStateUsed:
		return refused(http.StatusGone, "This link was already used. Each link works only once.")
	case store.TokenStateExpired:
		return refused(http.StatusGone, "This link has expired.")
	}
	return refused(http.StatusNotFound, "This link is not valid. Check that you opened the whole link from the mail.")
}

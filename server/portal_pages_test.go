package server_test

import (
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server/servertest"
)

// portalAppName is the application's name in the portal tests: markup,
// which every page must show as text.
const portalAppName = `<script>alert("app")</script> & Co`

// portalFix is an application with a customer owning a licence with two
// devices, beside another customer's licence with one; one reset a week.
type portalFix struct {
	*rtFix
	email, password, userID string
	mine, theirs            string // licence keys
}

func newPortal(t *testing.T, mods ...func(*config.Config)) *portalFix {
	t.Helper()
	f := &portalFix{rtFix: newRT(t, mods...), email: "customer@shop.test", password: "customer password 1"}
	f.mgmt(t, "PATCH", "", map[string]any{"name": portalAppName, "support_email": "help@vendor.test"}).Want(t, http.StatusOK)
	var reg struct {
		UserID string `json:"user_id"`
	}
	f.do(t, "POST", "/auth/register", map[string]any{"email": f.email, "password": f.password}).Want(t, http.StatusCreated).JSON(t, &reg)
	f.userID = reg.UserID
	keys := f.licenses(t, 2, planOpts{maxDevices: 2, resets: 1, plan: map[string]any{"name": `Pro <b>plan</b>`, "device_reset_window_days": 7}})
	f.mine, f.theirs = keys[0], keys[1]
	f.mgmt(t, "PATCH", "/licenses/"+f.ids[f.mine], map[string]any{"user_id": f.userID}).Want(t, http.StatusOK)
	for _, a := range [][2]string{{f.mine, "fp-laptop-SECRET"}, {f.mine, "fp-desktop-SECRET"}, {f.theirs, "fp-theirs-SECRET"}} {
		f.activate(t, a[0], a[1])
	}
	return f
}

// base is the portal of the fixture's production environment.
func (f *portalFix) base() string { return "/portal/" + f.appID + "/production" }

// portalBrowser is a client with a cookie jar that follows no redirect,
// as a browser without script posts the pages' forms.
type portalBrowser struct{ s *servertest.Server }

func (f *portalFix) browser(t *testing.T) *portalBrowser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := *f.s
	s.Client = &http.Client{Transport: f.s.Client.Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &portalBrowser{s: &s}
}

// do sends a request, with form (when not nil) urlencoded.
func (b *portalBrowser) do(t *testing.T, method, path string, form url.Values) *servertest.Resp {
	t.Helper()
	if form == nil {
		return b.s.Do(t, method, path, nil)
	}
	return b.s.Do(t, method, path, form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
}

// portalLimits turns rate limits on with these failed-login bounds, the
// request limits out of the way.
func portalLimits(failures, global int) func(*config.Config) {
	return func(c *config.Config) {
		c.RateLimit.Enabled, c.RateLimit.Account, c.RateLimit.RuntimeAuth = true, 1000, 1000
		c.RateLimit.LoginFailures, c.RateLimit.LoginFailuresGlobal = failures, global
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

// csrfOf is the CSRF token of the forms of the page at path.
func (b *portalBrowser) csrfOf(t *testing.T, path string) string {
	t.Helper()
	r := b.do(t, "GET", path, nil)
	m := csrfField.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("no csrf field on %s:\n%s", path, r.Body)
	}
	return string(m[1])
}

// signIn signs b in with the password form and returns the signed-in
// pages' CSRF token.
func (f *portalFix) signIn(t *testing.T, b *portalBrowser) string {
	t.Helper()
	form := url.Values{"csrf": {b.csrfOf(t, f.base())}, "email": {f.email}, "password": {f.password}}
	if r := b.do(t, "POST", f.base()+"/sign-in", form); r.Status != http.StatusSeeOther || r.Header.Get("Location") != f.base() {
		t.Fatalf("sign-in = %d (Location %q):\n%s", r.Status, r.Header.Get("Location"), r.Body)
	}
	return b.csrfOf(t, f.base())
}

// wantPortalPage is wantPage with the application's escaped name and its
// support address at the head.
func wantPortalPage(t *testing.T, r *servertest.Resp, status int, want ...string) {
	t.Helper()
	wantPage(t, r, status, append([]string{html.EscapeString(portalAppName), `href="mailto:help@vendor.test"`}, want...)...)
}

// cookieOf is the Set-Cookie of name in r, "" when none.
func cookieOf(r *servertest.Resp, name string) string {
	for _, c := range r.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, name+"=") {
			return c
		}
	}
	return ""
}

func wantAttrs(t *testing.T, cookie string, attrs ...string) {
	t.Helper()
	for _, a := range attrs {
		if !strings.Contains(cookie, a) {
			t.Fatalf("cookie %q lacks %s", cookie, a)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Fatalf("cookie %q is Secure on plain http", cookie)
	}
}

// TestPortalPages: the pages' headers, the 404 of an address that names
// no active application, the cookies, and the list after a sign-in by
// password (masked keys, no fingerprint, nothing of another customer).
func TestPortalPages(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	dev := "/portal/" + f.appID + "/development"
	for path, action := range map[string]string{"/portal/" + f.appID: f.base(), "/portal/" + f.appID + "/": f.base(), f.base(): f.base(), dev: dev} {
		r := b.do(t, "GET", path, nil)
		wantPortalPage(t, r, http.StatusOK, "Sign in", `action="`+action+`/sign-in"`, `action="`+action+`/sign-in-link"`)
		if r.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.Header.Get("Content-Security-Policy"), "form-action 'self'") {
			t.Fatalf("%s: headers %v", path, r.Header)
		}
	}
	wantAttrs(t, cookieOf(f.browser(t).do(t, "GET", f.base(), nil), "licensectl_portal_csrf"), "Path=/portal/", "HttpOnly", "SameSite=Strict")
	disabled := newRT(t)
	disabled.mgmt(t, "DELETE", "", nil).Want(t, http.StatusOK)
	for _, path := range []string{"/portal/01900000-0000-7000-8000-000000000001", "/portal/not-an-id/production",
		"/portal/" + f.appID + "/staging", "/portal/" + disabled.appID, "/portal/%3Cscript%3Ealert(1)%3C%5Cscript%3E/production"} {
		r := b.do(t, "GET", path, nil)
		wantPage(t, r, http.StatusNotFound, "There is no customer portal at this address")
		if strings.Contains(string(r.Body), "alert(1)") {
			t.Fatalf("%s is echoed:\n%s", path, r.Body)
		}
	}
	form := url.Values{"csrf": {b.csrfOf(t, f.base())}, "email": {" Customer@Shop.test "}, "password": {f.password}}
	r := b.do(t, "POST", f.base()+"/sign-in", form).Want(t, http.StatusSeeOther)
	wantAttrs(t, cookieOf(r, "licensectl_portal"), "Path=/portal/", "HttpOnly", "SameSite=Strict", "Max-Age=1800")
	home := b.do(t, "GET", f.base(), nil)
	mine := f.lic(t, f.mine)
	wantPortalPage(t, home, http.StatusOK, "Your licences", "Signed in as "+f.email, "•••••-•••••-•••••-•••••-"+f.mine[len(f.mine)-5:],
		"Pro &lt;b&gt;plan&lt;/b&gt;", "active", "Unnamed device", `id="license-`+mine.ID+`"`)
	body := string(home.Body)
	if n := strings.Count(body, `class="device"`); n != 2 {
		t.Fatalf("%d devices listed, want 2:\n%s", n, body)
	}
	for _, secret := range []string{f.mine, f.theirs, f.ids[f.theirs], "SECRET"} {
		if strings.Contains(body, secret) {
			t.Fatalf("the list shows %q (a full key, another's licence or a fingerprint):\n%s", secret, body)
		}
	}
	// The sign-in opened no runtime session on a device.
	if n := len(f.devicesOf(t)); n != 3 {
		t.Fatalf("%d devices after the sign-in, want the 3 activated", n)
	}
}

// devicesOf lists the environment's devices through the management API.
func (f *portalFix) devicesOf(t *testing.T) []rtDevice {
	t.Helper()
	var p struct {
		Data []rtDevice `json:"data"`
	}
	f.mgmt(t, "GET", "/devices?per_page=100", nil).Want(t, http.StatusOK).JSON(t, &p)
	return p.Data
}

func TestPortalCSRF(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b, in := f.browser(t), f.browser(t)
	pre, signedIn := b.csrfOf(t, f.base()), f.signIn(t, in)
	deactivate := f.base() + "/licenses/" + f.ids[f.mine] + "/devices/" + f.device(t, "fp-laptop-SECRET").ID + "/deactivate"
	signInForm := func(csrf string) url.Values {
		return url.Values{"csrf": {csrf}, "email": {f.email}, "password": {f.password}}
	}
	for name, c := range map[string]struct {
		b    *portalBrowser
		path string
		form url.Values
	}{
		"ErrSignInWithout":      {b, f.base() + "/sign-in", url.Values{"email": {f.email}, "password": {f.password}}},
		"ErrSignInWrong":        {b, f.base() + "/sign-in", signInForm(strings.Repeat("0", 64))},
		"ErrNoCookie":           {f.browser(t), f.base() + "/sign-in", signInForm(pre)},
		"ErrDeactivateWithout":  {in, deactivate, url.Values{}},
		"ErrDeactivatePreToken": {in, deactivate, url.Values{"csrf": {pre}}},
		"ErrSignOutWithout":     {in, f.base() + "/sign-out", url.Values{}},
		"ErrLinkWithout":        {b, f.base() + "/sign-in-link", url.Values{"email": {f.email}}},
	} {
		r := c.b.do(t, "POST", c.path, c.form)
		wantPortalPage(t, r, http.StatusForbidden, "This form has expired")
		if cookieOf(r, "licensectl_portal") != "" {
			t.Fatalf("%s: a refused form set the session cookie", name)
		}
	}
	if d := f.lic(t, f.mine); d.DevicesCount != 2 {
		t.Fatalf("devices_count = %d after refused forms, want 2", d.DevicesCount)
	}
	if m := f.s.MailsTo(t, f.email); len(m) != 0 {
		t.Fatalf("a refused form sent %d mails", len(m))
	}
	wantPortalPage(t, in.do(t, "GET", f.base(), nil), http.StatusOK, "Signed in as")
	in.do(t, "POST", deactivate, url.Values{"csrf": {signedIn}}).Want(t, http.StatusOK)
}

func TestPortalDeactivate(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := f.signIn(t, b)
	laptop, desktop, theirs := f.device(t, "fp-laptop-SECRET"), f.device(t, "fp-desktop-SECRET"), f.device(t, "fp-theirs-SECRET")
	path := func(lic, dev string) string { return f.base() + "/licenses/" + lic + "/devices/" + dev + "/deactivate" }
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, p := range []string{path(f.ids[f.theirs], theirs.ID), path(f.ids[f.mine], theirs.ID), path("x", laptop.ID),
			path(f.ids[f.mine], "01900000-0000-7000-8000-000000000001"), path(f.ids[f.mine], `%22%3E%3Cscript%3Ealert(1)`)} {
			wantPortalPage(t, b.do(t, "GET", p, nil), http.StatusNotFound, "This device is not on one of your licences")
			if r := b.do(t, "POST", p, url.Values{"csrf": {csrf}}); r.Status != http.StatusNotFound || strings.Contains(string(r.Body), "alert(1)") {
				t.Fatalf("POST %s = %d:\n%s", p, r.Status, r.Body)
			}
		}
		if d := f.lic(t, f.theirs); d.DevicesCount != 1 || d.DeviceResetsRemaining != 1 {
			t.Fatalf("the other licence after refusals: %d devices, %d resets", d.DevicesCount, d.DeviceResetsRemaining)
		}
	})
	t.Run("OK", func(t *testing.T) {
		wantPortalPage(t, b.do(t, "GET", path(f.ids[f.mine], laptop.ID), nil), http.StatusOK, `id="confirm"`, "spends one of the licence")
		if d := f.lic(t, f.mine); d.DevicesCount != 2 {
			t.Fatalf("the confirmation page changed the licence: %d devices", d.DevicesCount)
		}
		wantPortalPage(t, b.do(t, "POST", path(f.ids[f.mine], laptop.ID), url.Values{"csrf": {csrf}}), http.StatusOK, "0 device resets left", "Signed in as "+f.email)
		if d := f.lic(t, f.mine); d.DevicesCount != 1 || d.DeviceResetsRemaining != 0 {
			t.Fatalf("after the deactivation: %d devices, %d resets; want 1, 0", d.DevicesCount, d.DeviceResetsRemaining)
		}
		var audit struct {
			Data []struct {
				Actor    struct{ Type, ID string } `json:"actor"`
				Metadata map[string]any            `json:"metadata"`
			} `json:"data"`
		}
		f.mgmt(t, "GET", "/audit-logs?event=license.device_reset", nil).Want(t, http.StatusOK).JSON(t, &audit)
		if len(audit.Data) != 1 || audit.Data[0].Actor.Type != "user" || audit.Data[0].Actor.ID != f.userID || audit.Data[0].Metadata["by"] != "portal" {
			t.Fatalf("the reset's audit = %+v", audit.Data)
		}
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		r := b.do(t, "POST", path(f.ids[f.mine], desktop.ID), url.Values{"csrf": {csrf}})
		wantPortalPage(t, r, http.StatusForbidden, "A reset is possible again on", "in 7 days")
		rt := f.do(t, "POST", "/devices/reset", map[string]any{"license_key": f.mine, "device_id": desktop.ID})
		rt.WantError(t, http.StatusForbidden, "reset_limit_reached")
		if got := r.Header.Get("Retry-After"); got != "604800" || got != rt.Header.Get("Retry-After") {
			t.Fatalf("Retry-After %q, the runtime's %q; want both 604800", got, rt.Header.Get("Retry-After"))
		}
	})
	t.Run("OKSignOut", func(t *testing.T) {
		r := b.do(t, "POST", f.base()+"/sign-out", url.Values{"csrf": {csrf}})
		wantPortalPage(t, r, http.StatusOK, "You are signed out.")
		if strings.Contains(string(r.Body), "Signed in as") || !strings.Contains(cookieOf(r, "licensectl_portal"), "Max-Age=0") {
			t.Fatalf("the sign-out page: %v\n%s", r.Header, r.Body)
		}
		wantPortalPage(t, b.do(t, "GET", path(f.ids[f.mine], desktop.ID), nil), http.StatusUnauthorized, "Your session has ended")
	})
}

func TestPortalMailedLink(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := b.csrfOf(t, f.base())
	send := func(email string) *servertest.Resp {
		return b.do(t, "POST", f.base()+"/sign-in-link", url.Values{"csrf": {csrf}, "email": {email}})
	}
	known, unknown := send(f.email), send("nobody@shop.test")
	wantPortalPage(t, known, http.StatusOK, "If the address has an account here, we sent it a sign-in link.")
	if string(known.Body) != string(unknown.Body) || known.Status != unknown.Status {
		t.Fatalf("the answers differ for a known and an unknown address:\n%s\n---\n%s", known.Body, unknown.Body)
	}
	wantPortalPage(t, send("not an address"), http.StatusBadRequest, "That is not a valid e-mail address.")
	send(f.email)
	if m := f.s.MailsTo(t, "nobody@shop.test"); len(m) != 0 {
		t.Fatalf("%d mails to an address without an account", len(m))
	}
	mails := f.s.MailsTo(t, f.email)
	if len(mails) != 2 || !strings.Contains(mails[0].Subject, "Sign in to") {
		t.Fatalf("mails = %+v", mails)
	}
	tok := servertest.LinkToken(t, mails[0].Body, f.base()+"/link")
	for range 2 { // opening the link spends nothing
		wantPortalPage(t, b.do(t, "GET", f.base()+"/link?token="+tok, nil), http.StatusOK, `id="use-link"`)
	}
	r := b.do(t, "POST", f.base()+"/link", url.Values{"csrf": {csrf}, "token": {tok}}).Want(t, http.StatusSeeOther)
	wantAttrs(t, cookieOf(r, "licensectl_portal"), "HttpOnly", "SameSite=Strict")
}

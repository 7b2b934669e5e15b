package server_test

import (
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server/servertest"
)

// portalAppName is the application's name in the portal tests: markup and
// an ampersand, which every page must show as text.
const portalAppName = `<script>alert("app")</script> & Co`

// portalFix is an application with a customer: an end-user owning a licence
// with two devices, and a licence of someone else with one.
type portalFix struct {
	*rtFix
	email, password string
	userID          string
	mine, theirs    string // licence keys
}

// newPortal builds the fixture; the plan allows two devices and one reset
// per resetWindowDays.
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
	f.activate(t, f.mine, "fp-laptop-SECRET")
	f.activate(t, f.mine, "fp-desktop-SECRET")
	f.activate(t, f.theirs, "fp-theirs-SECRET")
	return f
}

// base is the portal of the fixture's production environment.
func (f *portalFix) base() string { return "/portal/" + f.appID + "/production" }

// portalBrowser is a client with a cookie jar that does not follow
// redirects, as a browser without script posts the pages' forms.
type portalBrowser struct {
	s *servertest.Server // the fixture's server with this client
	c *http.Client
}

func (f *portalFix) browser(t *testing.T) *portalBrowser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := *f.s
	s.Client = &http.Client{Transport: f.s.Client.Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &portalBrowser{s: &s, c: s.Client}
}

// do sends a request, with form (when not nil) urlencoded.
func (b *portalBrowser) do(t *testing.T, method, path string, form url.Values) *servertest.Resp {
	t.Helper()
	if form == nil {
		return b.s.Do(t, method, path, nil)
	}
	return b.s.Do(t, method, path, form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
}

// portalLimits turns rate limits on, with failures failed logins per
// account and address and global per account, and the request limits out
// of the way.
func portalLimits(failures, global int) func(*config.Config) {
	return func(c *config.Config) {
		c.RateLimit.Enabled, c.RateLimit.Account, c.RateLimit.RuntimeAuth = true, 1000, 1000
		c.RateLimit.LoginFailures, c.RateLimit.LoginFailuresGlobal = failures, global
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

// csrfOf is the CSRF token of a page's forms.
func csrfOf(t *testing.T, r *servertest.Resp) string {
	t.Helper()
	m := csrfField.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("no csrf field on the page:\n%s", r.Body)
	}
	return string(m[1])
}

// signIn signs b in with the password form and returns the CSRF token of
// the signed-in pages.
func (f *portalFix) signIn(t *testing.T, b *portalBrowser) string {
	t.Helper()
	csrf := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	r := b.do(t, "POST", f.base()+"/sign-in", url.Values{"csrf": {csrf}, "email": {f.email}, "password": {f.password}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != f.base()+"/" {
		t.Fatalf("sign-in = %d (Location %q):\n%s", r.Status, r.Header.Get("Location"), r.Body)
	}
	home := b.do(t, "GET", f.base()+"/", nil)
	wantPortalPage(t, home, http.StatusOK, "Your licences", "Signed in as "+f.email)
	return csrfOf(t, home)
}

// wantPortalPage is wantPage for the portal: also the application's name,
// escaped, and its support address head the page.
func wantPortalPage(t *testing.T, r *servertest.Resp, status int, want ...string) {
	t.Helper()
	wantPage(t, r, status, append([]string{html.EscapeString(portalAppName), `href="mailto:help@vendor.test"`}, want...)...)
	if strings.Contains(string(r.Body), portalAppName) {
		t.Fatalf("the application's name is not escaped:\n%s", r.Body)
	}
}

// cookieOf returns the Set-Cookie header of name in r.
func cookieOf(t *testing.T, r *servertest.Resp, name string) string {
	t.Helper()
	for _, c := range r.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, name+"=") {
			return c
		}
	}
	t.Fatalf("no %s cookie set; headers %v", name, r.Header)
	return ""
}

func TestPortalPagesHeaders(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	for _, path := range []string{"/portal/" + f.appID, "/portal/" + f.appID + "/", f.base(), f.base() + "/", "/portal/" + f.appID + "/development/"} {
		r := b.do(t, "GET", path, nil)
		wantPortalPage(t, r, http.StatusOK, "Sign in", `action="/portal/`+f.appID+"/", `id="link-form"`)
		if r.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.Header.Get("Content-Security-Policy"), "form-action 'self'") {
			t.Fatalf("%s: headers %v", path, r.Header)
		}
	}
	c := cookieOf(t, f.browser(t).do(t, "GET", f.base()+"/", nil), "licensectl_portal_csrf")
	for _, attr := range []string{"Path=/portal/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(c, attr) {
			t.Fatalf("csrf cookie %q lacks %s", c, attr)
		}
	}
	if strings.Contains(c, "Secure") {
		t.Fatalf("csrf cookie %q is Secure on plain http", c)
	}
	// The development portal's forms post to the development portal.
	dev := b.do(t, "GET", "/portal/"+f.appID+"/development", nil)
	wantPortalPage(t, dev, http.StatusOK, `action="/portal/`+f.appID+`/development/sign-in"`)

	disabled := newRT(t)
	disabled.mgmt(t, "DELETE", "", nil).Want(t, http.StatusOK)
	for name, path := range map[string]string{
		"ErrUnknownApplication":  "/portal/01900000-0000-7000-8000-000000000001/",
		"ErrMalformedID":         "/portal/not-an-id/",
		"ErrUnknownEnvironment":  "/portal/" + f.appID + "/staging/",
		"ErrDisabledApplication": "/portal/" + disabled.appID + "/",
		"ErrXSSInPath":           "/portal/%3Cscript%3Ealert(1)%3C%5Cscript%3E/production/",
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(t, "GET", path, nil)
			wantPage(t, r, http.StatusNotFound, "There is no customer portal at this address")
			if strings.Contains(string(r.Body), "alert(1)") {
				t.Fatalf("the path is echoed:\n%s", r.Body)
			}
		})
	}
}

func TestPortalPasswordSignIn(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	for name, c := range map[string]struct {
		email, password string
		status          int
		want            string
	}{
		"ErrWrongPassword": {f.email, "not the password", http.StatusUnauthorized, "The e-mail address or the password is wrong."},
		"ErrUnknownEmail":  {"nobody@shop.test", f.password, http.StatusUnauthorized, "The e-mail address or the password is wrong."},
		"ErrNoEmail":       {"", f.password, http.StatusBadRequest, "Enter the e-mail address and the password"},
		"ErrXSSInEmail":    {`"><script>alert(1)</script>@x.test`, f.password, http.StatusBadRequest, "Enter the e-mail address and the password"},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.do(t, "POST", f.base()+"/sign-in", url.Values{"csrf": {csrf}, "email": {c.email}, "password": {c.password}})
			wantPortalPage(t, r, c.status, c.want)
			if strings.Contains(string(r.Body), "alert(1)") || r.Header.Get("Set-Cookie") != "" && strings.Contains(r.Header.Get("Set-Cookie"), "licensectl_portal=") {
				t.Fatalf("refused sign-in echoed the input or opened a session:\n%v\n%s", r.Header, r.Body)
			}
		})
	}
	t.Run("OK", func(t *testing.T) {
		r := b.do(t, "POST", f.base()+"/sign-in", url.Values{"csrf": {csrf}, "email": {" Customer@Shop.test "}, "password": {f.password}})
		r.Want(t, http.StatusSeeOther)
		c := cookieOf(t, r, "licensectl_portal")
		for _, attr := range []string{"Path=/portal/", "HttpOnly", "SameSite=Strict", "Max-Age=1800"} {
			if !strings.Contains(c, attr) {
				t.Fatalf("session cookie %q lacks %s", c, attr)
			}
		}
		home := b.do(t, "GET", f.base()+"/", nil)
		mine, theirs := f.lic(t, f.mine), f.lic(t, f.theirs)
		last := f.mine[len(f.mine)-5:]
		wantPortalPage(t, home, http.StatusOK, "•••••-•••••-•••••-•••••-"+last, "Pro &lt;b&gt;plan&lt;/b&gt;", "active", "Unnamed device",
			`id="license-`+mine.ID+`"`, "/deactivate")
		body := string(home.Body)
		for _, secret := range []string{f.mine, f.theirs, theirs.ID, "SECRET"} {
			if strings.Contains(body, secret) {
				t.Fatalf("the list shows %q (a full key, another's licence or a fingerprint):\n%s", secret, body)
			}
		}
		if n := strings.Count(body, `class="device"`); n != 2 {
			t.Fatalf("%d devices listed, want 2:\n%s", n, body)
		}
		// No runtime session or device came of the sign-in.
		f.wantAudit(t, "user.login", 1)
		if n := len(f.devicesOf(t)); n != 3 {
			t.Fatalf("%d devices after the sign-in, want the 3 activated", n)
		}
	})
	t.Run("ErrOtherEnvironment", func(t *testing.T) {
		// The production session does not sign the browser in to development.
		wantPortalPage(t, b.do(t, "GET", "/portal/"+f.appID+"/development/", nil), http.StatusOK, `id="password-form"`)
	})
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
	b := f.browser(t)
	pre := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	other := f.browser(t)
	signedIn := f.signIn(t, other)
	dev := f.device(t, "fp-laptop-SECRET")
	deactivate := f.base() + "/licenses/" + f.ids[f.mine] + "/devices/" + dev.ID + "/deactivate"
	for name, c := range map[string]struct {
		b    *portalBrowser
		path string
		form url.Values
	}{
		"ErrSignInWithout":      {b, f.base() + "/sign-in", url.Values{"email": {f.email}, "password": {f.password}}},
		"ErrSignInWrong":        {b, f.base() + "/sign-in", url.Values{"csrf": {strings.Repeat("0", 64)}, "email": {f.email}, "password": {f.password}}},
		"ErrNoCookie":           {f.browser(t), f.base() + "/sign-in", url.Values{"csrf": {pre}, "email": {f.email}, "password": {f.password}}},
		"ErrDeactivateWithout":  {other, deactivate, url.Values{}},
		"ErrDeactivatePreToken": {other, deactivate, url.Values{"csrf": {pre}}},
		"ErrSignOutWithout":     {other, f.base() + "/sign-out", url.Values{}},
		"ErrLinkWithout":        {b, f.base() + "/sign-in-link", url.Values{"email": {f.email}}},
	} {
		t.Run(name, func(t *testing.T) {
			r := c.b.do(t, "POST", c.path, c.form)
			wantPortalPage(t, r, http.StatusForbidden, "This form has expired")
			if strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), ";"), "licensectl_portal=") {
				t.Fatalf("a refused form set the session cookie: %v", r.Header)
			}
		})
	}
	// Nothing changed: the device is bound, the session alive, no mail.
	if d := f.lic(t, f.mine); d.DevicesCount != 2 {
		t.Fatalf("devices_count = %d after refused forms, want 2", d.DevicesCount)
	}
	wantPortalPage(t, other.do(t, "GET", f.base()+"/", nil), http.StatusOK, "Signed in as")
	if m := f.s.MailsTo(t, f.email); len(m) != 0 {
		t.Fatalf("a refused form sent %d mails", len(m))
	}
	// The signed-in token works where the refusals were.
	other.do(t, "POST", deactivate, url.Values{"csrf": {signedIn}}).Want(t, http.StatusOK)
}

func TestPortalDeactivate(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := f.signIn(t, b)
	laptop, desktop, theirs := f.device(t, "fp-laptop-SECRET"), f.device(t, "fp-desktop-SECRET"), f.device(t, "fp-theirs-SECRET")
	path := func(lic, dev string) string { return f.base() + "/licenses/" + lic + "/devices/" + dev + "/deactivate" }
	t.Run("ErrNotFound", func(t *testing.T) {
		for name, p := range map[string]string{
			"another's licence":            path(f.ids[f.theirs], theirs.ID),
			"a device of another licence":  path(f.ids[f.mine], theirs.ID),
			"a malformed id":               path("x", laptop.ID),
			"markup in the id":             path("%3Cscript%3Ealert(1)%3C%5Cscript%3E", laptop.ID),
			"an unknown device of my own":  path(f.ids[f.mine], "01900000-0000-7000-8000-000000000001"),
			"markup in the device segment": path(f.ids[f.mine], `%22%3E%3Cscript%3Ealert(1)%3C%5Cscript%3E`),
		} {
			wantPortalPage(t, b.do(t, "GET", p, nil), http.StatusNotFound, "This device is not on one of your licences")
			r := b.do(t, "POST", p, url.Values{"csrf": {csrf}})
			wantPortalPage(t, r, http.StatusNotFound, "This device is not on one of your licences")
			if strings.Contains(string(r.Body), "alert(1)") {
				t.Fatalf("%s: echoed:\n%s", name, r.Body)
			}
		}
		if d := f.lic(t, f.theirs); d.DevicesCount != 1 || d.DeviceResetsRemaining != 1 {
			t.Fatalf("the other licence after refusals: %d devices, %d resets", d.DevicesCount, d.DeviceResetsRemaining)
		}
	})
	t.Run("OKConfirmThenDeactivate", func(t *testing.T) {
		confirm := b.do(t, "GET", path(f.ids[f.mine], laptop.ID), nil)
		wantPortalPage(t, confirm, http.StatusOK, "Deactivate a device", `id="confirm"`, "spends one of the licence")
		if d := f.lic(t, f.mine); d.DevicesCount != 2 {
			t.Fatalf("the confirmation page changed the licence: %d devices", d.DevicesCount)
		}
		r := b.do(t, "POST", path(f.ids[f.mine], laptop.ID), url.Values{"csrf": {csrf}})
		wantPortalPage(t, r, http.StatusOK, "Device deactivated", "The licence has 0 device resets left.")
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
		if len(audit.Data) != 1 || audit.Data[0].Actor.Type != "end_user" || audit.Data[0].Actor.ID != f.userID || audit.Data[0].Metadata["by"] != "portal" {
			t.Fatalf("the reset's audit = %+v", audit.Data)
		}
	})
	t.Run("ErrResetLimitReached", func(t *testing.T) {
		r := b.do(t, "POST", path(f.ids[f.mine], desktop.ID), url.Values{"csrf": {csrf}})
		wantPortalPage(t, r, http.StatusForbidden, "No resets left", "A reset is possible again on", "in 7 days")
		if got, _ := strconv.Atoi(r.Header.Get("Retry-After")); got != 7*24*3600 {
			t.Fatalf("Retry-After = %q, want the runtime's %d", r.Header.Get("Retry-After"), 7*24*3600)
		}
		// The runtime answers the same.
		rt := f.do(t, "POST", "/devices/reset", map[string]any{"license_key": f.mine, "device_id": desktop.ID})
		rt.WantError(t, http.StatusForbidden, "reset_limit_reached")
		if rt.Header.Get("Retry-After") != r.Header.Get("Retry-After") {
			t.Fatalf("runtime Retry-After %q, portal %q", rt.Header.Get("Retry-After"), r.Header.Get("Retry-After"))
		}
		if d := f.lic(t, f.mine); d.DevicesCount != 1 {
			t.Fatalf("a refused deactivation unbound the device: %d devices", d.DevicesCount)
		}
	})
	t.Run("OKSignOut", func(t *testing.T) {
		r := b.do(t, "POST", f.base()+"/sign-out", url.Values{"csrf": {csrf}})
		wantPortalPage(t, r, http.StatusOK, "You are signed out.")
		if c := cookieOf(t, r, "licensectl_portal"); !strings.Contains(c, "Max-Age=0") {
			t.Fatalf("sign-out cookie %q does not remove the session", c)
		}
		wantPortalPage(t, b.do(t, "GET", path(f.ids[f.mine], desktop.ID), nil), http.StatusUnauthorized, "Your session has ended")
	})
}

func TestPortalSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := f.signIn(t, b)
	u, _ := url.Parse(f.s.URL + "/portal/")
	var session string
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "licensectl_portal" {
			session = c.Value
		}
	}
	b.do(t, "POST", f.base()+"/sign-out", url.Values{"csrf": {csrf}}).Want(t, http.StatusOK)
	// A copy of the cookie taken before is worth nothing after.
	stolen := f.browser(t)
	stolen.c.Jar.SetCookies(u, []*http.Cookie{{Name: "licensectl_portal", Value: session, Path: "/portal/"}})
	wantPortalPage(t, stolen.do(t, "GET", f.base()+"/", nil), http.StatusOK, `id="password-form"`)
}

func TestPortalMailedLink(t *testing.T) {
	t.Parallel()
	f := newPortal(t)
	b := f.browser(t)
	csrf := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	send := func(email string) *servertest.Resp {
		return b.do(t, "POST", f.base()+"/sign-in-link", url.Values{"csrf": {csrf}, "email": {email}})
	}
	known, unknown := send(f.email), send("nobody@shop.test")
	wantPortalPage(t, known, http.StatusOK, "If the address has an account here, we sent it a sign-in link.")
	if string(known.Body) != string(unknown.Body) || known.Status != unknown.Status {
		t.Fatalf("the answers differ for a known and an unknown address:\n%s\n---\n%s", known.Body, unknown.Body)
	}
	wantPortalPage(t, send("not an address"), http.StatusBadRequest, "That is not a valid e-mail address.")
	if m := f.s.MailsTo(t, "nobody@shop.test"); len(m) != 0 {
		t.Fatalf("%d mails to an address without an account", len(m))
	}
	mails := f.s.MailsTo(t, f.email)
	if len(mails) != 1 || !strings.Contains(mails[0].Subject, "Sign in to") || !strings.Contains(mails[0].Body, "15 minutes") {
		t.Fatalf("mails = %+v", mails)
	}
	link := mailLink(t, mails[0].Body, f.base()+"/link?token=")
	path := strings.TrimPrefix(link, f.s.URL)
	tok := servertest.LinkToken(t, mails[0].Body, f.base()+"/link")

	t.Run("OKOpenSpendsNothing", func(t *testing.T) {
		for range 2 {
			wantPortalPage(t, b.do(t, "GET", path, nil), http.StatusOK, `id="use-link"`)
		}
	})
	t.Run("OK", func(t *testing.T) {
		r := b.do(t, "POST", f.base()+"/link", url.Values{"csrf": {csrf}, "token": {tok}})
		if r.Status != http.StatusSeeOther {
			t.Fatalf("link sign-in = %d:\n%s", r.Status, r.Body)
		}
		cookieOf(t, r, "licensectl_portal")
		wantPortalPage(t, b.do(t, "GET", f.base()+"/", nil), http.StatusOK, "Your licences")
	})
	t.Run("ErrUsedTwice", func(t *testing.T) {
		fresh := f.browser(t)
		c := csrfOf(t, fresh.do(t, "GET", f.base()+"/", nil))
		r := fresh.do(t, "POST", f.base()+"/link", url.Values{"csrf": {c}, "token": {tok}})
		wantPortalPage(t, r, http.StatusGone, "This link was already used.")
		wantPortalPage(t, fresh.do(t, "GET", path, nil), http.StatusGone, "This link was already used.")
		if strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), ";"), "licensectl_portal=") {
			t.Fatalf("a spent link opened a session")
		}
	})
	t.Run("ErrUnknownAndXSS", func(t *testing.T) {
		for _, bad := range []string{"", "nope", `"><script>alert(1)</script>`} {
			r := b.do(t, "GET", f.base()+"/link?token="+url.QueryEscape(bad), nil)
			wantPortalPage(t, r, http.StatusNotFound, "This link is not valid.")
			if strings.Contains(string(r.Body), "alert(1)") {
				t.Fatalf("the token is echoed:\n%s", r.Body)
			}
		}
	})
	t.Run("ErrOtherEnvironment", func(t *testing.T) {
		// b is signed in now: its forms carry the session's token.
		b.do(t, "POST", f.base()+"/sign-in-link", url.Values{"csrf": {csrfOf(t, b.do(t, "GET", f.base()+"/", nil))}, "email": {f.email}}).Want(t, http.StatusOK)
		var next string
		for _, m := range f.s.MailsTo(t, f.email) {
			if got := servertest.LinkToken(t, m.Body, f.base()+"/link"); got != tok {
				next = got
			}
		}
		dev := f.browser(t)
		devBase := "/portal/" + f.appID + "/development"
		c := csrfOf(t, dev.do(t, "GET", devBase+"/", nil))
		wantPortalPage(t, dev.do(t, "POST", devBase+"/link", url.Values{"csrf": {c}, "token": {next}}), http.StatusNotFound, "This link is not valid.")
		// It still works where it was sent for.
		dev.do(t, "POST", f.base()+"/link", url.Values{"csrf": {c}, "token": {next}}).Want(t, http.StatusSeeOther)
	})
}

func TestPortalLockout(t *testing.T) {
	t.Parallel()
	f := newPortal(t, portalLimits(3, 100))
	b := f.browser(t)
	csrf := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	signIn := func(password string) *servertest.Resp {
		return b.do(t, "POST", f.base()+"/sign-in", url.Values{"csrf": {csrf}, "email": {f.email}, "password": {password}})
	}
	for range 3 {
		signIn("not the password").Want(t, http.StatusUnauthorized)
	}
	r := signIn(f.password)
	wantPortalPage(t, r, http.StatusTooManyRequests, "Too many failed sign-ins for this account from your address", "sign in with a link by mail")
	if n, _ := strconv.Atoi(r.Header.Get("Retry-After")); n <= 0 || n > 60 {
		t.Fatalf("Retry-After = %q, want the window's rest", r.Header.Get("Retry-After"))
	}
	// One count for the account: the runtime login from the same address is
	// refused too.
	ts, n := f.replay()
	f.do(t, "POST", "/auth/login", map[string]any{"email": f.email, "password": f.password, "device_fingerprint": "fp-login",
		"timestamp": ts, "nonce": n}).WantError(t, http.StatusTooManyRequests, "rate_limited")
	f.s.Clock().Advance(f.s.Config.RateLimit.Window)
	signIn(f.password).Want(t, http.StatusSeeOther)
}

func TestPortalChallenge(t *testing.T) {
	t.Parallel()
	f := newPortal(t, portalLimits(100, 2))
	b := f.browser(t)
	csrf := csrfOf(t, b.do(t, "GET", f.base()+"/", nil))
	signIn := func(password, altcha string) *servertest.Resp {
		return b.do(t, "POST", f.base()+"/sign-in", url.Values{"csrf": {csrf}, "email": {f.email}, "password": {password}, "altcha": {altcha}})
	}
	for range 2 {
		signIn("not the password", "").Want(t, http.StatusUnauthorized)
	}
	r := signIn(f.password, "")
	wantPortalPage(t, r, http.StatusForbidden, "This account had many failed sign-ins", `id="altcha"`, `src="/account/static/portal-challenge.js"`)
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After on the challenge page")
	}
	wantPortalPage(t, signIn(f.password, "bm90IGEgc29sdXRpb24="), http.StatusBadRequest, "The puzzle&#39;s answer was not accepted")
	signIn(f.password, solvedChallenge(t, f.s)).Want(t, http.StatusSeeOther)
	// The challenge script is served with the pages' headers.
	js := b.do(t, "GET", "/account/static/portal-challenge.js", nil).Want(t, http.StatusOK)
	if !strings.Contains(js.Header.Get("Content-Security-Policy"), "default-src 'none'") || !strings.Contains(string(js.Body), "crypto.subtle") {
		t.Fatalf("the challenge script: %v\n%s", js.Header, js.Body)
	}
}

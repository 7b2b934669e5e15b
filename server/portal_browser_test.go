package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// waitText waits until the element sel holds text: the page a form's
// answer loads. An evaluation that a navigation interrupts is tried again.
func waitText(sel, text string) chromedp.Action {
	expr := fmt.Sprintf(`(function(){var e=document.querySelector(%q);return !!e && e.textContent.includes(%q)})()`, sel, text)
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			var ok bool
			if err := chromedp.Evaluate(expr, &ok).Do(ctx); err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %q in %s: %w", text, sel, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// noDialogs counts the script dialogs the pages open: markup that ran
// (alert) instead of being shown as text.
func noDialogs(ctx context.Context) *atomic.Int32 {
	var n atomic.Int32
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			n.Add(1)
			go func() { _ = chromedp.Run(ctx, cdppage.HandleJavaScriptDialog(true)) }()
		}
	})
	return &n
}

// signInTasks opens the sign-in page at home and sends the password form.
func (f *portalFix) signInTasks(home, password string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(home),
		chromedp.WaitVisible("#password-form", chromedp.ByID),
		chromedp.SendKeys("#email", f.email, chromedp.ByID),
		chromedp.SendKeys("#password", password, chromedp.ByID),
		chromedp.Click("#sign-in", chromedp.ByID),
	}
}

// TestPortalInBrowser drives the self-service portal in Chromium as a
// customer would, without a line of script of the test's own on the pages:
// sign in by password, the list, a deactivation through its confirmation,
// the quota's refusal, sign-out, a mailed link (used twice: refused), a
// forged cross-site form (refused), markup in every parameter shown as
// text, and the lockout after wrong passwords.
func TestPortalInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browserCtx(t)
	dialogs := noDialogs(ctx)
	f := newPortal(t, portalLimits(3, 100))
	home := f.s.URL + f.base()
	signIn := func(password string) chromedp.Tasks { return f.signInTasks(home, password) }

	t.Run("OKPasswordAndList", func(t *testing.T) {
		var appName, keys, plan string
		var devices int
		err := chromedp.Run(ctx, signIn(f.password),
			waitText("h1", "Your licences"),
			chromedp.Text("#app-name", &appName, chromedp.ByID),
			chromedp.Evaluate(`Array.from(document.querySelectorAll(".key")).map(e => e.textContent).join(" ")`, &keys),
			chromedp.Text(".plan", &plan, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll("tr.device").length`, &devices),
		)
		if err != nil {
			t.Fatal(err)
		}
		if appName != portalAppName || plan != "Pro <b>plan</b>" {
			t.Fatalf("the application's name reads %q, the plan %q: markup must show as text", appName, plan)
		}
		if keys != "•••••-•••••-•••••-•••••-"+f.mine[len(f.mine)-5:] || devices != 2 {
			t.Fatalf("keys %q with %d devices; want the customer's one licence, masked, with 2", keys, devices)
		}
	})

	t.Run("OKDeactivateWithConfirmation", func(t *testing.T) {
		var outcome string
		err := chromedp.Run(ctx,
			chromedp.Navigate(home),
			chromedp.Click("a.deactivate", chromedp.ByQuery),
			chromedp.WaitVisible("#confirm", chromedp.ByID),
			chromedp.Click("#confirm", chromedp.ByID),
			waitText("h1", "Device deactivated"),
			chromedp.Text("#outcome", &outcome, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(outcome, "0 device resets left") {
			t.Fatalf("outcome = %q", outcome)
		}
		if d := f.lic(t, f.mine); d.DevicesCount != 1 {
			t.Fatalf("%d devices after the deactivation, want 1", d.DevicesCount)
		}
	})

	t.Run("ErrResetLimitReached", func(t *testing.T) {
		var outcome string
		err := chromedp.Run(ctx,
			chromedp.Navigate(home),
			chromedp.Click("a.deactivate", chromedp.ByQuery),
			chromedp.WaitVisible("#confirm", chromedp.ByID),
			chromedp.Click("#confirm", chromedp.ByID),
			waitText("h1", "No resets left"),
			chromedp.Text("#outcome", &outcome, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(outcome, "A reset is possible again on") || !strings.Contains(outcome, "in 7 days") {
			t.Fatalf("outcome = %q", outcome)
		}
	})

	t.Run("ErrCSRF", func(t *testing.T) {
		// Another site's page posts the sign-out form on its own: the
		// browser sends no SameSite=Strict cookie with it and the token is
		// missing, so the portal refuses and the session lives on.
		forged := `<form method="post" action="` + f.s.URL + f.base() + `/sign-out"><input name="csrf" value="x"></form>` +
			`<script>document.forms[0].submit()</script>`
		var outcome string
		err := chromedp.Run(ctx,
			chromedp.Navigate("data:text/html,"+url.PathEscape(forged)),
			waitText("h1", "This form has expired"),
			chromedp.Navigate(home),
			chromedp.Text("#signed-in", &outcome, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(outcome, f.email) {
			t.Fatalf("after the forged form: %q, want still signed in", outcome)
		}
	})

	t.Run("OKSignOut", func(t *testing.T) {
		err := chromedp.Run(ctx,
			chromedp.Navigate(home),
			chromedp.Click("#sign-out", chromedp.ByID),
			waitText("#outcome", "You are signed out."),
			chromedp.Navigate(home),
			chromedp.WaitVisible("#password-form", chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("OKMailedLinkOnce", func(t *testing.T) {
		var refused string
		err := chromedp.Run(ctx,
			chromedp.Navigate(home),
			chromedp.SendKeys("#link-email", f.email, chromedp.ByID),
			chromedp.Click("#send-link", chromedp.ByID),
			waitText("#outcome", "If the address has an account here, we sent it a sign-in link."),
		)
		if err != nil {
			t.Fatal(err)
		}
		link := mailLink(t, f.s.MailsTo(t, f.email)[0].Body, f.base()+"/link?token=")
		err = chromedp.Run(ctx,
			chromedp.Navigate(link),
			chromedp.WaitVisible("#use-link", chromedp.ByID),
			chromedp.Click("#use-link", chromedp.ByID),
			waitText("h1", "Your licences"),
			chromedp.Click("#sign-out", chromedp.ByID),
			waitText("#outcome", "You are signed out."),
			// The same link again.
			chromedp.Navigate(link),
			waitText("#outcome", "This link was already used."),
			chromedp.Text("#outcome", &refused, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(refused, "Each link works only once") {
			t.Fatalf("the second use reads %q", refused)
		}
	})

	t.Run("ErrXSSInParameters", func(t *testing.T) {
		x := url.PathEscape(`"><img src=x onerror=alert(1)><svg onload=alert(2)>`)
		for _, p := range []string{
			f.base() + "/link?token=" + url.QueryEscape(`"><script>alert(3)</script>`),
			f.base() + "/licenses/" + x + "/devices/" + x + "/deactivate",
			"/portal/" + x + "/production/",
			"/portal/" + f.appID + "/" + x + "/",
		} {
			if err := chromedp.Run(ctx, chromedp.Navigate(f.s.URL+p), chromedp.WaitVisible("h1", chromedp.ByQuery)); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		err := chromedp.Run(ctx, chromedp.Navigate(home),
			chromedp.SendKeys("#email", `"><script>alert(4)</script>@x.test`, chromedp.ByID),
			chromedp.SendKeys("#password", "<script>alert(5)</script>", chromedp.ByID),
			// The browser's own check of type=email is skipped, as a
			// forged request would skip it.
			chromedp.Evaluate(`document.getElementById("password-form").noValidate = true`, nil),
			chromedp.Click("#sign-in", chromedp.ByID),
			waitText("#outcome", "Enter the e-mail address and the password"),
		)
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ErrLockout", func(t *testing.T) {
		for range 3 {
			if err := chromedp.Run(ctx, signIn("not the password"), waitText("#outcome", "The e-mail address or the password is wrong.")); err != nil {
				t.Fatal(err)
			}
		}
		var outcome string
		err := chromedp.Run(ctx, signIn(f.password),
			waitText("#outcome", "Too many failed sign-ins"),
			chromedp.Text("#outcome", &outcome, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(outcome, "sign in with a link by mail") {
			t.Fatalf("the lockout reads %q", outcome)
		}
		// One count per account: the runtime login from this address is refused too.
		ts, n := f.replay()
		f.do(t, "POST", "/auth/login", map[string]any{"email": f.email, "password": f.password, "device_fingerprint": "fp-login",
			"timestamp": ts, "nonce": n}).WantError(t, http.StatusTooManyRequests, "rate_limited")
	})

	if n := dialogs.Load(); n != 0 {
		t.Fatalf("%d script dialogs opened: markup ran instead of showing as text", n)
	}
}

// TestPortalChallengeInBrowser: once an account's failed sign-ins trip the
// account-wide bound, the sign-in page's script solves the anti-bot puzzle
// and the right password signs in.
func TestPortalChallengeInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browserCtx(t)
	f := newPortal(t, portalLimits(100, 2))
	home := f.s.URL + f.base()
	err := chromedp.Run(ctx,
		f.signInTasks(home, "not the password"), waitText("#outcome", "wrong"),
		f.signInTasks(home, "not the password"), waitText("#outcome", "wrong"),
		f.signInTasks(home, f.password), waitText("#outcome", "many failed sign-ins"),
		waitText("#challenge", "Puzzle solved"),
		chromedp.SendKeys("#email", f.email, chromedp.ByID),
		chromedp.SendKeys("#password", f.password, chromedp.ByID),
		chromedp.Click("#sign-in", chromedp.ByID),
		waitText("h1", "Your licences"),
	)
	if err != nil {
		t.Fatal(err)
	}
}

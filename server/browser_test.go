package server_test

import (
	"context"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"licensectl/config"
	"licensectl/server/servertest"
)

// chromium returns the path of a local Chromium. Without one the test is
// skipped, except on CI (CI=true), where .ci/run installs Debian's chromium
// and a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium binary on CI: .ci/run must install Debian's chromium package")
	}
	t.Skip("no chromium binary found locally (install Debian's chromium package to run the browser test); CI runs it")
	return ""
}

// browserCtx starts a headless Chromium for the test.
func browserCtx(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.WindowSize(900, 820))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// screenshot writes the page to docs/<name>.png when the test runs with
// -update (the flag of TestErrorCodeDocs, in the same test binary).
func screenshot(name string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		f := flag.Lookup("update")
		if f == nil || f.Value.String() != "true" {
			return nil
		}
		var png []byte
		if err := chromedp.CaptureScreenshot(&png).Do(ctx); err != nil {
			return err
		}
		return os.WriteFile("../docs/"+name+".png", png, 0o644)
	})
}

// TestAccountPagesInBrowser opens the links of real mails in Chromium:
// verify-email, then reset-password, then signs in with the new password
// through the API; and finishes a partner sign-in on its page.
func TestAccountPagesInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browserCtx(t)
	p := newProvider(t)
	s := servertest.New(t, func(c *config.Config) {
		c.Partner.Issuer, c.Partner.ClientID, c.Partner.ClientSecret = p.Issuer(), p.ClientID, p.ClientSecret
	})
	email := newAddress("browser")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)

	t.Run("OKVerifyEmail", func(t *testing.T) {
		link := mailLink(t, s.MailsTo(t, email)[0].Body, "/account/verify-email?token=")
		var outcome, signIn string
		err := chromedp.Run(ctx,
			chromedp.Navigate(link),
			chromedp.WaitVisible("#verify", chromedp.ByID),
			screenshot("account-verify-email"),
			chromedp.Click("#verify", chromedp.ByID),
			chromedp.WaitVisible("#outcome", chromedp.ByID),
			chromedp.Text("#outcome", &outcome, chromedp.ByID),
			// The next step the page offers leads to a page that exists.
			chromedp.Click("#home", chromedp.ByID),
			chromedp.WaitVisible("#sign-in", chromedp.ByID),
			chromedp.Text("#sign-in", &signIn, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(outcome, "Done: your e-mail address is verified") {
			t.Fatalf("outcome = %q", outcome)
		}
		if !strings.Contains(signIn, "POST /v1/mgmt/auth/login") {
			t.Fatalf("the account page's sign-in text = %q", signIn)
		}
	})

	t.Run("OKResetPassword", func(t *testing.T) {
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": email}).Want(t, http.StatusOK)
		mails := s.MailsTo(t, email)
		link := mailLink(t, mails[len(mails)-1].Body, "/account/reset-password?token=")
		const newPassword = "amber kites circle the quiet lighthouse"
		var hint, outcome string
		err := chromedp.Run(ctx,
			chromedp.Navigate(link),
			chromedp.WaitVisible("#new_password", chromedp.ByID),
			// The script's live feedback.
			chromedp.SendKeys("#new_password", newPassword[:5], chromedp.ByID),
			chromedp.Text("#hint", &hint, chromedp.ByID),
			chromedp.SendKeys("#new_password", newPassword[5:], chromedp.ByID),
			chromedp.SendKeys("#confirm_password", newPassword, chromedp.ByID),
			screenshot("account-reset-password"),
			chromedp.Click("#reset", chromedp.ByID),
			chromedp.WaitVisible("#outcome", chromedp.ByID),
			chromedp.Text("#outcome", &outcome, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(hint, "Too short") {
			t.Errorf("hint for a short password = %q", hint)
		}
		if !strings.Contains(outcome, "Done: your password was changed") {
			t.Fatalf("outcome = %q", outcome)
		}
		s.Login(t, email, newPassword)
	})

	t.Run("OKPartnerSignIn", func(t *testing.T) {
		p.QueueUser(partnerUser(newAddress("partner-browser"), true))
		var status string
		var mismatch bool
		err := chromedp.Run(ctx,
			chromedp.Navigate(s.URL+"/v1/mgmt/auth/partner"),
			chromedp.WaitVisible("#profile", chromedp.ByID),
			chromedp.SendKeys("#first_name", "Grace", chromedp.ByID),
			chromedp.SendKeys("#last_name", "Hopper", chromedp.ByID),
			chromedp.SendKeys("#organization_name", "Compilers Inc", chromedp.ByID),
			// The browser checks the phone itself: a pattern it cannot
			// compile (the v flag's rules) would be ignored.
			chromedp.SendKeys("#phone", "12345", chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("phone").validity.patternMismatch`, &mismatch),
			chromedp.Evaluate(`document.getElementById("phone").value = ""`, nil),
			chromedp.SendKeys("#phone", "+1 415 555 0100", chromedp.ByID),
			chromedp.Click("#tos", chromedp.ByID),
			screenshot("account-partner-callback"),
			chromedp.Click("#complete", chromedp.ByID),
			chromedp.WaitVisible("#token-box", chromedp.ByID),
			chromedp.Text("#status", &status, chromedp.ByID),
		)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(status, "Your organization is ready") {
			t.Fatalf("status = %q", status)
		}
		if !mismatch {
			t.Error("the browser took 12345 for a phone number: the page's pattern does not work")
		}
	})
}

// mailLink is the first link in body starting with s.URL-relative prefix.
func mailLink(t *testing.T, body, prefix string) string {
	t.Helper()
	i := strings.Index(body, prefix)
	if i < 0 {
		t.Fatalf("no %s link in mail:\n%s", prefix, body)
	}
	start := strings.LastIndex(body[:i], "http")
	end := i + strings.IndexAny(body[i:], " \r\n\t")
	return body[start:end]
}

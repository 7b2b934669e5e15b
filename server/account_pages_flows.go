package server

import (
	"net/http"
	"strings"
	"time"

	"licensectl/server/api"
	"licensectl/server/mail"
	"licensectl/store"
)

// linkKind is what a page says about the links of one purpose.
type linkKind struct{ purpose, title, again string }

var (
	verifyLink = linkKind{store.TokenVerifyEmail, "Verify your e-mail address",
		"If your address is not verified yet, ask for a new verification mail from the account page."}
	resetLink = linkKind{store.TokenResetPassword, "Choose a new password", "Ask for a new link from the account page."}
)

// linkForm shows the form named form for a live token, and otherwise why
// the link does not work. It spends nothing.
func (s *Server) linkForm(r *http.Request, tok string, k linkKind, form string, status int, msg string) (int, string, page) {
	if tok == "" {
		return s.refusedLink(r, tok, k)
	}
	state, err := s.db.MailTokenState(r.Context(), tok, k.purpose)
	if err != nil {
		return s.failed(r, err)
	}
	if state != store.TokenStateValid {
		return s.refusedLink(r, tok, k)
	}
	return status, form, page{Title: k.title, Token: tok, Message: msg}
}

// verifyEmailPage shows a button on GET and spends the token on POST.
func (s *Server) verifyEmailPage(r *http.Request) (int, string, page) {
	tok := tokenOf(r)
	if r.Method == http.MethodGet {
		return s.linkForm(r, tok, verifyLink, "verify", http.StatusOK, "")
	}
	// The session verify-email opens is not handed out here: the page signs
	// no one in, it only confirms the address.
	_, err := s.db.VerifyEmail(r.Context(), tok, s.cfg.Auth.SessionTTL)
	switch store.ErrorCode(err) {
	case "":
		return http.StatusOK, "message", page{Title: "E-mail address verified", Tone: "ok",
			Message: "Done: your e-mail address is verified.", Next: "You can close this page. The account page says where to sign in.", Home: true}
	case store.ECodeInvalidToken:
		return s.refusedLink(r, tok, verifyLink)
	}
	return s.failed(r, err)
}

// resetPasswordPage shows the new-password form on GET and sets the password
// on POST. A password the policy refuses shows the form again with the
// reason; the token is spent only by a change that succeeds.
func (s *Server) resetPasswordPage(r *http.Request) (int, string, page) {
	tok := tokenOf(r)
	if r.Method == http.MethodGet {
		return s.linkForm(r, tok, resetLink, "reset", http.StatusOK, "")
	}
	pw := r.PostFormValue("new_password")
	if pw != r.PostFormValue("confirm_password") {
		return s.linkForm(r, tok, resetLink, "reset", http.StatusBadRequest, "The two passwords differ. Type the same password twice.")
	}
	_, err := s.db.ResetPassword(r.Context(), tok, pw)
	switch store.ErrorCode(err) {
	case "":
		return http.StatusOK, "message", page{Title: "Password changed", Tone: "ok",
			Message: "Done: your password was changed and every session of the account was signed out.",
			Next:    "Sign in again with the new password: the account page says where.", Home: true}
	case store.ECodeValidation:
		msg := store.ErrorMessage(err)
		if rest, ok := strings.CutPrefix(msg, "new_password"); ok {
			msg = "The new password" + rest + "."
		}
		return http.StatusBadRequest, "reset", page{Title: resetLink.title, Token: tok, Message: msg}
	case store.ECodeInvalidToken:
		return s.refusedLink(r, tok, resetLink)
	}
	return s.failed(r, err)
}

// accountIndexPage is /account/: what these pages are for and the next
// steps that exist on this server. There is no sign-in page here (members
// sign in through the API, a vendor's dashboard or partner sign-in), so the
// page says so rather than pointing at one.
func (s *Server) accountIndexPage(r *http.Request) (int, string, page) {
	return http.StatusOK, "index", page{Title: "Your account", Partner: s.partner != nil}
}

// mailForm is a page that asks for an address and mails it a link, with
// the API's answer whatever the address.
type mailForm struct {
	title, intro, button, action string
	purpose                      string
	ttl                          time.Duration
	build                        func(to, token string) mail.Message
	answer                       api.AccountMessage
}

func (s *Server) mailFormPage(r *http.Request, f mailForm) (int, string, page) {
	if r.Method == http.MethodGet {
		return http.StatusOK, "mailform", page{Title: f.title, Message: f.intro, Action: f.action, Button: f.button, Home: true}
	}
	err := s.issueMailToken(r, r.PostFormValue("email"), f.purpose, f.ttl, f.build)
	if e := store.AsError(err); e != nil && e.Code == store.ECodeValidation {
		return http.StatusBadRequest, "message", page{Title: f.title, Tone: "bad", Message: "That is not a valid e-mail address. Go back and check it."}
	}
	if err != nil {
		return s.failed(r, err)
	}
	return http.StatusOK, "message", page{Title: f.title, Tone: "ok", Message: f.answer.Message, Home: true}
}

// forgotPasswordPage mails a password-reset link.
func (s *Server) forgotPasswordPage(r *http.Request) (int, string, page) {
	return s.mailFormPage(r, mailForm{title: "Forgot your password?", action: "/account/forgot-password", button: "Send the link",
		intro:   "Enter the address of your account. If it has one, we send it a link to choose a new password.",
		purpose: store.TokenResetPassword, ttl: resetTokenTTL, build: s.resetMail, answer: forgotAnswer})
}

// resendVerificationPage mails a new verification link, for an address
// whose link expired or was lost.
func (s *Server) resendVerificationPage(r *http.Request) (int, string, page) {
	return s.mailFormPage(r, mailForm{title: "Verify your e-mail address", action: "/account/resend-verification", button: "Send a new link",
		intro:   "Enter the address you signed up with. If it is awaiting verification, we send it a new link.",
		purpose: store.TokenVerifyEmail, ttl: verifyTokenTTL, build: s.verifyMail, answer: resendAnswer})
}

// partnerPage is where the provider sends the browser back; its script
// finishes the sign-in through the API.
func (s *Server) partnerPage(r *http.Request) (int, string, page) {
	if s.partner == nil {
		return http.StatusNotFound, "message", page{Title: "Partner sign-in", Tone: "bad", Message: "Partner sign-in is not configured on this server."}
	}
	return http.StatusOK, "partner", page{Title: "Partner sign-in", TOSVersion: accountTOSVersion}
}

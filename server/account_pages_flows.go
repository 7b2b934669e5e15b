package server

import (
	"net/http"
	"strings"

	"licensectl/store"
)

// linkKind is what a page says about the links of one purpose.
type linkKind struct{ purpose, title, again string }

var (
	verifyLink = linkKind{store.TokenVerifyEmail, "Verify your e-mail address",
		"If your address is not verified yet, sign in and ask for a new verification mail."}
	resetLink = linkKind{store.TokenResetPassword, "Choose a new password", "Ask for a new link on the forgot-password page."}
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
			Message: "Done: your e-mail address is verified.", Next: "You can close this page and sign in."}
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
			Message: "Done: your password was changed and every session of the account was signed out.", Next: "Sign in with the new password."}
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

// forgotPasswordPage asks for an address and mails it a reset link, with the
// API's answer whatever the address.
func (s *Server) forgotPasswordPage(r *http.Request) (int, string, page) {
	const title = "Forgot your password?"
	if r.Method == http.MethodGet {
		return http.StatusOK, "forgot", page{Title: title}
	}
	err := s.issueMailToken(r, r.PostFormValue("email"), store.TokenResetPassword, resetTokenTTL, s.resetMail)
	if e := store.AsError(err); e != nil && e.Code == store.ECodeValidation {
		return http.StatusBadRequest, "message", page{Title: title, Tone: "bad", Message: "That is not a valid e-mail address. Go back and check it."}
	}
	if err != nil {
		return s.failed(r, err)
	}
	return http.StatusOK, "message", page{Title: title, Tone: "ok", Message: forgotAnswer.Message}
}

// partnerPage is where the provider sends the browser back; its script
// finishes the sign-in through the API.
func (s *Server) partnerPage(r *http.Request) (int, string, page) {
	if s.partner == nil {
		return http.StatusNotFound, "message", page{Title: "Partner sign-in", Tone: "bad", Message: "Partner sign-in is not configured on this server."}
	}
	return http.StatusOK, "partner", page{Title: "Partner sign-in", TOSVersion: accountTOSVersion}
}

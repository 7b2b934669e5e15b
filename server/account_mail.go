package server

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"licensectl/server/mail"
)

// Lifetimes of the tokens sent by mail (docs/design.md §8).
const (
	verifyTokenTTL = 24 * time.Hour
	resetTokenTTL  = time.Hour
)

// publicURL is the server's base address as browsers reach it, without a
// trailing slash: server.public_url, else http(s)://<listen address> (the
// bound one, so port 0 works).
func (s *Server) publicURL() string {
	if u := s.cfg.Server.PublicURL; u != "" {
		return strings.TrimRight(u, "/")
	}
	if u := s.URL(); u != "" {
		return u
	}
	return "http://" + s.cfg.Server.Listen
}

// link is the address a mail gives for a token of the page at path: the
// account page of this server, or the vendor's dashboard under
// mail.link_base.
func (s *Server) link(path, token string) string {
	base := s.publicURL() + "/account"
	if lb := s.cfg.Mail.LinkBase; lb != "" {
		base = strings.TrimRight(lb, "/")
	}
	return base + path + "?token=" + url.QueryEscape(token)
}

func (s *Server) verifyMail(to, token string) mail.Message {
	return mail.Message{To: to, Subject: "Verify your e-mail address", Text: fmt.Sprintf(`Welcome to licensectl.

Open this link to verify your e-mail address and sign in:

%s

Or send this token to POST /v1/mgmt/auth/verify-email:

%s

The link works once and expires in 24 hours. If you did not sign up, ignore
this message: no account is activated without it.
`, s.link("/verify-email", token), token)}
}

func (s *Server) alreadyRegisteredMail(to string) mail.Message {
	return mail.Message{To: to, Subject: "Someone tried to sign up with your address", Text: fmt.Sprintf(`Someone, perhaps you, tried to create a licensectl account with this
e-mail address, which already has one. Nothing was changed.

If it was you and you have forgotten your password, reset it here:

%s

If it was not you, you can ignore this message.
`, s.publicURL()+"/account/forgot-password")}
}

func (s *Server) resetMail(to, token string) mail.Message {
	return mail.Message{To: to, Subject: "Reset your password", Text: fmt.Sprintf(`Someone, perhaps you, asked to reset the password of your licensectl account.

Open this link to choose a new password:

%s

Or send this token with the new password to POST /v1/mgmt/auth/reset-password:

%s

The link works once and expires in 1 hour. Resetting the password signs out
every session of the account. If you did not ask for this, ignore this message.
`, s.link("/reset-password", token), token)}
}

// sendMail sends m, only ever after the change it reports has committed. A
// failure is logged, not returned: the answers of signup, resend and forgot
// must not depend on the account (anti-enumeration), and the user can ask
// for the mail again.
// queueMail sends m to addr from the mail queue, after the change it
// reports has committed (the caller's transaction is done).
func (s *Server) queueMail(addr string, m mail.Message) {
	s.mailq.enqueue(addr, func(ctx context.Context) { s.sendMail(ctx, m) })
}

func (s *Server) sendMail(ctx context.Context, m mail.Message) {
	if err := s.acct.mailer.Send(context.WithoutCancel(ctx), m); err != nil {
		s.logger.Error("send account mail", "subject", m.Subject, "err", err)
	}
}

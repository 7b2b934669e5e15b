package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"licensectl/server/antibot"
	"licensectl/server/api"
	"licensectl/server/mail"
	"licensectl/store"
	"licensectl/store/password"
)

// accountServices are what the account routes need beyond the store.
type accountServices struct {
	signer     *dashSigner
	challenger *antibot.Challenger
	mailer     mail.Sender
	// perIP limits account calls per client address; nil when rate limits
	// are off.
	perIP *limiter
	// logins throttles dashboard logins per account and client address;
	// nil when off.
	logins *loginThrottle
}

// usedChallenges keeps spent ALTCHA solutions in the store, so a restart
// does not reopen a replay.
type usedChallenges struct{ db store.Accounts }

var _ antibot.UsedStore = usedChallenges{}

// UseOnce implements antibot.UsedStore.
func (u usedChallenges) UseOnce(ctx context.Context, key string, expires time.Time) (bool, error) {
	return u.db.UseChallenge(ctx, key, expires)
}

// initServices builds the services the account routes use: the dashboard
// token signer and the ALTCHA key (both kept in the store, so they survive
// restarts), the mailer and the account rate limiters.
func (s *Server) initServices() error {
	a := &accountServices{}
	var err error
	if a.signer, err = newDashSigner(s.db.MetaSecret, s.now); err != nil {
		return err
	}
	hmacKey, err := s.db.MetaSecret("altcha_hmac_key", func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	})
	if err != nil {
		return err
	}
	if a.challenger, err = antibot.NewChallenger(hex.EncodeToString(hmacKey), usedChallenges{s.db}, s.now); err != nil {
		return err
	}
	from := s.cfg.Mail.From
	if s.cfg.Mail.Driver == mail.DriverSMTP && s.cfg.Mail.SMTP.From != "" {
		from = s.cfg.Mail.SMTP.From
	}
	smtp := s.cfg.Mail.SMTP
	a.mailer, err = mail.New(mail.Options{Driver: s.cfg.Mail.Driver, Dir: filepath.Join(s.cfg.DataDir, "mail"), From: from, Logger: s.logger,
		SMTP: mail.SMTPOptions{Host: smtp.Host, Port: smtp.Port, Username: smtp.Username, Password: smtp.Password, TLS: smtp.TLS}})
	if err != nil {
		return err
	}
	if rl := s.cfg.RateLimit; rl.Enabled {
		a.perIP = newLimiter(rl.Account, rl.Window, s.now)
	}
	a.logins = newLoginThrottle(s.cfg.RateLimit, s.db, "dashboard", a.challenger, s.logger)
	s.acct = a
	s.mailq = newMailQueue(s.db, s.logger)
	s.partner, err = newPartnerSignIn(s)
	return err
}

// accountCall wraps a public account handler: it applies the per-address
// limit and puts the caller's address into the audit actor (the store names
// the member once it is known).
func (s *Server) accountCall(fn handlerFunc) http.Handler {
	return s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		if lim := s.acct.perIP; lim != nil {
			if err := lim.take(w, clientKey(r), "too many account requests from this address; retry later"); err != nil {
				return err
			}
		}
		ctx := store.WithActor(r.Context(), store.Actor{Type: store.ActorSystem, IP: clientIP(r), UserAgent: r.UserAgent()})
		return fn(w, r.WithContext(ctx))
	})
}

// verifyAltcha accepts a solved challenge once; a bad one is
// validation_failed on field altcha.
func verifyAltcha(ctx context.Context, v challengeVerifier, payload string) error {
	err := v.Verify(ctx, payload)
	// The message must name the field (docs/design.md §7); antibot's messages
	// are written for people, so prefix the field name.
	if e := store.AsError(err); e != nil && e.Field == "altcha" {
		return store.Invalid("altcha", "altcha: %s", e.Message)
	}
	return err
}

// The answers of the calls that must not reveal whether an address has an
// account: the same bytes whatever happened.
var (
	signupAnswer = api.AccountMessage{Success: true, Message: "Check your inbox: we sent a message to this address. Follow its link to verify the address and sign in."}
	resendAnswer = api.AccountMessage{Success: true, Message: "If this address has an account awaiting verification, we sent it a new verification link."}
	forgotAnswer = api.AccountMessage{Success: true, Message: "If this address has an account, we sent it a link to reset the password."}
)

func (s *Server) challenge(w http.ResponseWriter, r *http.Request) error {
	c, err := s.acct.challenger.Create()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// validateSignup checks what the request alone decides, cheapest first; the
// store re-checks the same rules authoritatively. Nothing here looks at
// accounts.
func validateSignup(req *api.SignupRequest, blocked []string) error {
	for _, f := range []struct{ name, v string }{
		{"first_name", req.FirstName}, {"last_name", req.LastName}, {"organization_name", req.OrganizationName},
		{"email", req.Email}, {"password", req.Password}, {"tos_accepted_version", req.TOSAcceptedVersion},
	} {
		if err := requireString(f.name, f.v); err != nil {
			return err
		}
	}
	email, err := store.NormalizeEmail("email", req.Email)
	if err != nil {
		return err
	}
	if antibot.IsDisposable(email, blocked) {
		return store.Invalid("email", "email is at a disposable e-mail domain; sign up with a permanent address")
	}
	return password.CheckPolicy(req.Password, email)
}

// signup answers the same bytes whether or not the address is registered;
// both paths hash the password and send one mail.
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	var req api.SignupRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := validateSignup(&req, s.cfg.Signup.BlockedDomains); err != nil {
		return err
	}
	// The challenge is spent only once the rest of the request is valid, so
	// a typo does not cost the user a new proof of work.
	if s.cfg.Signup.Challenge == "altcha" {
		if err := requireString("altcha", req.Altcha); err != nil {
			return err
		}
		if err := verifyAltcha(r.Context(), s.acct.challenger, req.Altcha); err != nil {
			return err
		}
	}
	res, err := s.db.Signup(r.Context(), store.SignupInput{FirstName: req.FirstName, LastName: req.LastName, OrganizationName: req.OrganizationName,
		Email: req.Email, Password: req.Password, Phone: req.Phone, TOSVersion: req.TOSAcceptedVersion, VerifyTTL: verifyTokenTTL})
	if err != nil {
		return err
	}
	m := s.verifyMail(res.Member.Email, res.VerifyToken)
	if res.Existing {
		m = s.alreadyRegisteredMail(res.Member.Email)
	}
	s.queueMail(res.Member.Email, m)
	writeJSON(w, http.StatusOK, signupAnswer)
	return nil
}

func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	var req api.TokenRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := requireString("token", req.Token); err != nil {
		return err
	}
	res, err := s.db.VerifyEmail(r.Context(), strings.TrimSpace(req.Token), s.cfg.Auth.SessionTTL)
	if err != nil {
		return err
	}
	tok, err := s.acct.signer.sign(res.Session)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.EmailVerified{Success: true, AccessToken: tok, OrganizationID: res.Member.OrgID})
	return nil
}

// mailToken issues a token of purpose for the address in the body and mails
// it through build when the address has an account that should get one. The
// answer is the same either way.
func (s *Server) mailToken(w http.ResponseWriter, r *http.Request, purpose string, ttl time.Duration, build func(to, token string) mail.Message, answer api.AccountMessage) error {
	var req api.EmailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.issueMailToken(r, req.Email, purpose, ttl, build); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, answer)
	return nil
}

// issueMailToken mails a token of purpose to the account of email when it
// should get one. No such account is not an error: the caller's answer must
// not tell.
//
// The request only checks the address and queues the work, so it costs the
// same for every address; the worker looks the account up.
func (s *Server) issueMailToken(r *http.Request, email, purpose string, ttl time.Duration, build func(to, token string) mail.Message) error {
	return s.queueTokenMail(r, email, purpose, func(ctx context.Context, addr string) (string, string, error) {
		m, token, err := s.db.IssueMailToken(ctx, addr, purpose, ttl)
		if err != nil {
			return "", "", err
		}
		return m.Email, token, nil
	}, build)
}

// queueTokenMail queues, for the address email, the work of issue (which
// stores a token for the address's account and returns where to send it)
// and the mail build makes of its token. The request pays only for the
// address's check: whether an account exists shows neither in the answer
// nor in its time; an address without one (not_found) gets no mail.
func (s *Server) queueTokenMail(r *http.Request, email, purpose string, issue func(ctx context.Context, addr string) (to, token string, err error), build func(to, token string) mail.Message) error {
	addr, err := store.NormalizeEmail("email", email)
	if err != nil {
		return err
	}
	actor := store.ActorFrom(r.Context())
	s.mailq.enqueue(addr, func(ctx context.Context) {
		to, token, err := issue(store.WithActor(ctx, actor), addr)
		switch store.ErrorCode(err) {
		case "":
			s.sendMail(ctx, build(to, token))
		case store.ECodeNotFound:
		default:
			s.logger.Error("issue mail token", "purpose", purpose, "err", err)
		}
	})
	return nil
}

func (s *Server) resendVerification(w http.ResponseWriter, r *http.Request) error {
	return s.mailToken(w, r, store.TokenVerifyEmail, verifyTokenTTL, s.verifyMail, resendAnswer)
}

func (s *Server) forgotPassword(w http.ResponseWriter, r *http.Request) error {
	return s.mailToken(w, r, store.TokenResetPassword, resetTokenTTL, s.resetMail, forgotAnswer)
}

func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request) error {
	var req api.ResetPasswordRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := requireString("token", req.Token); err != nil {
		return err
	}
	if err := requireString("new_password", req.NewPassword); err != nil {
		return err
	}
	if _, err := s.db.ResetPassword(r.Context(), strings.TrimSpace(req.Token), req.NewPassword); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.AccountMessage{Success: true, Message: "Your password was changed and every session of the account was signed out. Sign in with the new password."})
	return nil
}

// login refuses an address with too many recent failures before checking
// the password, so that guessing stops even when a guess would be right.
// Unknown addresses are counted too: throttling must not tell them apart.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var req api.LoginRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := requireString("email", req.Email); err != nil {
		return err
	}
	if err := requireString("password", req.Password); err != nil {
		return err
	}
	// Refused before the throttle counts it: no password is judged.
	account, err := store.LoginEmail("email", req.Email)
	if err != nil {
		return err
	}
	ip := clientKey(r)
	if err := s.acct.logins.attempt(r.Context(), account, ip, req.Altcha); err != nil {
		return err
	}
	res, err := s.db.Login(r.Context(), req.Email, req.Password, s.cfg.Auth.SessionTTL)
	if err != nil {
		if store.ErrorCode(err) == store.ECodeRateLimited {
			s.acct.logins.notJudged(r.Context(), account, ip) // the hasher was saturated: no guess was made
		}
		return err
	}
	s.acct.logins.succeeded(r.Context(), account, ip)
	tok, err := s.acct.signer.sign(res.Session)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LoggedIn{AccessToken: tok, EmailVerified: res.Member.EmailVerified})
	return nil
}

// logout ends the session of the presented token; the token is refused from
// then on.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.RevokeDashboardSession(r.Context(), principalFrom(r.Context()).SessionID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

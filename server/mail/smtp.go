package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// smtpSender relays messages through an SMTP server with go-mail.
type smtpSender struct {
	opts   SMTPOptions
	from   *netmail.Address
	logger *slog.Logger
	// tlsConfig replaces go-mail's default (system roots, ServerName = Host)
	// when set; only tests set it, to trust their own certificate.
	tlsConfig *tls.Config
}

// smtpTimeout bounds one delivery (connect and transaction) when the
// caller's context has no earlier deadline, so a stalled relay cannot hold
// a request open indefinitely.
const smtpTimeout = 30 * time.Second

func newSMTPSender(o SMTPOptions, from *netmail.Address, logger *slog.Logger) (*smtpSender, error) {
	if o.Host == "" {
		return nil, errors.New("mail: smtp driver needs a host")
	}
	if o.TLS == "" {
		o.TLS = TLSStartTLS
	}
	defaultPort := map[string]int{TLSNone: 25, TLSStartTLS: 587, TLSImplicit: 465}
	p, ok := defaultPort[o.TLS]
	if !ok {
		return nil, fmt.Errorf("mail: unknown smtp tls mode %q (want none, starttls or tls)", o.TLS)
	}
	if o.Port == 0 {
		o.Port = p
	}
	if o.Port < 1 || o.Port > 65535 {
		return nil, fmt.Errorf("mail: invalid smtp port %d", o.Port)
	}
	if (o.Username == "") != (o.Password == "") {
		return nil, errors.New("mail: smtp username and password go together")
	}
	s := &smtpSender{opts: o, from: from, logger: logger}
	// Build a client once so that option errors surface at startup, not at
	// the first signup.
	if _, err := s.client(); err != nil {
		return nil, err
	}
	return s, nil
}

// client returns a new go-mail client. One per Send: a go-mail Client holds
// the state of one connection, and mails are rare enough that reusing
// connections is not worth sharing that state between goroutines.
func (s *smtpSender) client() (*gomail.Client, error) {
	o := s.opts
	opts := []gomail.Option{gomail.WithPort(o.Port), gomail.WithTimeout(smtpTimeout)}
	switch o.TLS {
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	}
	if s.tlsConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(s.tlsConfig.Clone()))
	}
	if o.Username != "" {
		opts = append(opts,
			gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(o.Username),
			gomail.WithPassword(o.Password))
	}
	c, err := gomail.NewClient(o.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("mail: smtp client: %w", err)
	}
	return c, nil
}

// Send delivers m over a fresh connection.
func (s *smtpSender) Send(ctx context.Context, m Message) error {
	msg, err := build(s.from, m, time.Now())
	if err != nil {
		return err
	}
	c, err := s.client()
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, smtpTimeout)
		defer cancel()
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: smtp %s:%d: %w", s.opts.Host, s.opts.Port, err)
	}
	s.logger.InfoContext(ctx, "mail sent", "to", m.To, "subject", m.Subject)
	return nil
}

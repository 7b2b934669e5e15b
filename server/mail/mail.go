// Package mail sends the account mails of licensectl (verification, password
// reset, notices) through one of three drivers chosen by configuration
// (docs/design.md §2): "file" writes RFC 5322 .eml files, "smtp" relays through a
// mail server, "log" only logs.
//
// Bodies are plain text sent as 8bit, never quoted-printable, so that the
// tokens and links they carry stay readable and copyable in any viewer.
package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one plain-text mail to one recipient.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender delivers messages. Implementations are safe for concurrent use.
type Sender interface {
	// Send delivers m or returns why it could not. Delivery is not retried
	// here: the caller decides whether a failed mail fails the request.
	Send(ctx context.Context, m Message) error
}

var (
	_ Sender = (*fileSender)(nil)
	_ Sender = (*smtpSender)(nil)
	_ Sender = (*logSender)(nil)
)

// Driver names accepted in Options.Driver.
const (
	DriverFile = "file"
	DriverSMTP = "smtp"
	DriverLog  = "log"
)

// TLS modes accepted in SMTPOptions.TLS.
const (
	TLSNone     = "none"
	TLSStartTLS = "starttls"
	TLSImplicit = "tls"
)

// Options configures New.
type Options struct {
	// Driver is DriverFile, DriverSMTP or DriverLog.
	Driver string
	// Dir is where the file driver writes; created with mode 0700.
	Dir string
	// From is the sender, an RFC 5322 address such as
	// "licensectl <no-reply@example.com>".
	From string
	// SMTP configures the smtp driver.
	SMTP SMTPOptions
	// Logger receives the log driver's messages and the other drivers'
	// delivery notes; nil means slog.Default().
	Logger *slog.Logger
}

// SMTPOptions configures the smtp driver.
type SMTPOptions struct {
	Host string
	// Port 0 means the usual port of the TLS mode: 25, 587 or 465.
	Port               int
	Username, Password string
	// TLS is TLSNone, TLSStartTLS (the default when empty) or TLSImplicit.
	TLS string
}

// New returns the Sender selected by opts.Driver after checking that opts
// hold what that driver needs.
func New(opts Options) (Sender, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	from, err := netmail.ParseAddress(opts.From)
	if err != nil {
		return nil, fmt.Errorf("mail: invalid from address %q: %w", opts.From, err)
	}
	switch opts.Driver {
	case DriverFile:
		return newFileSender(opts.Dir, from, logger)
	case DriverSMTP:
		return newSMTPSender(opts.SMTP, from, logger)
	case DriverLog:
		return &logSender{logger: logger}, nil
	case "":
		return nil, errors.New("mail: no driver configured (want file, smtp or log)")
	default:
		return nil, fmt.Errorf("mail: unknown driver %q (want file, smtp or log)", opts.Driver)
	}
}

// validate rejects messages no driver can deliver, before any I/O.
func (m Message) validate() error {
	if _, err := netmail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("mail: invalid recipient %q: %w", m.To, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return errors.New("mail: subject contains a line break")
	}
	return nil
}

// build turns m into a complete go-mail message, shared by the file and smtp
// drivers so that a mail read from disk in development is byte for byte what
// production sends.
func build(from *netmail.Address, m Message, now time.Time) (*gomail.Msg, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	// 8bit keeps long links and tokens intact; quoted-printable would break
	// them with soft line breaks and "=3D".
	// No User-Agent: the go-mail version is nobody's business.
	msg := gomail.NewMsg(gomail.WithEncoding(gomail.NoEncoding), gomail.WithCharset(gomail.CharsetUTF8), gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(from)
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("mail: invalid recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetDateWithValue(now)
	id, err := messageID(from, now)
	if err != nil {
		return nil, err
	}
	msg.SetMessageIDWithValue(id)
	msg.SetBodyString(gomail.TypeTextPlain, crlf(m.Text))
	return msg, nil
}

// messageID returns a unique Message-ID in the sender's domain, rather than
// go-mail's default of the local host name, which leaks the machine name and
// is often not a domain at all.
func messageID(from *netmail.Address, now time.Time) (string, error) {
	domain := "localhost"
	if i := strings.LastIndexByte(from.Address, '@'); i >= 0 && i < len(from.Address)-1 {
		domain = from.Address[i+1:]
	}
	r, err := randomHex(8)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d.%s@%s", now.UnixNano(), r, domain), nil
}

// crlf normalizes line endings to CRLF as RFC 5322 requires, whatever the
// template used, and ends the body with one.
func crlf(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mail: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

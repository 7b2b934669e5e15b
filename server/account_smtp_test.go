package server_test

import (
	"io"
	"net"
	"net/http"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"

	"licensectl/config"
	"licensectl/server/servertest"
)

// smtpInbox is an in-process SMTP server that keeps what it receives.
type smtpInbox struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (b *smtpInbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{inbox: b}, nil }

func (b *smtpInbox) messages() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.msgs...)
}

type smtpSession struct{ inbox *smtpInbox }

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *smtpSession) Reset()                               {}
func (s *smtpSession) Logout() error                        { return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.inbox.mu.Lock()
	s.inbox.msgs = append(s.inbox.msgs, b)
	s.inbox.mu.Unlock()
	return nil
}

// startInbox serves inbox on 127.0.0.1 in cleartext and returns its port.
func startInbox(t *testing.T, inbox *smtpInbox) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(inbox)
	srv.Domain = "localhost"
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func TestSignupOverSMTP(t *testing.T) {
	t.Parallel()
	inbox := &smtpInbox{}
	port := startInbox(t, inbox)
	s := servertest.New(t, func(c *config.Config) {
		c.Mail.Driver = "smtp"
		c.Mail.SMTP = config.SMTP{Host: "127.0.0.1", Port: port, TLS: "none", From: "licensectl <accounts@licensectl.test>"}
		c.Server.PublicURL = "https://licenses.example.com/"
	})
	email := newAddress("smtp")
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)))
	s.WaitMail()

	msgs := inbox.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages relayed, want 1", len(msgs))
	}
	msg, err := netmail.ReadMessage(strings.NewReader(string(msgs[0])))
	if err != nil {
		t.Fatal(err)
	}
	if to := msg.Header.Get("To"); !strings.Contains(to, email) {
		t.Fatalf("To = %q", to)
	}
	if from := msg.Header.Get("From"); !strings.Contains(from, "accounts@licensectl.test") {
		t.Fatalf("From = %q", from)
	}
	body, _ := io.ReadAll(msg.Body)
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	if !strings.Contains(text, "https://licenses.example.com/account/verify-email?token=") {
		t.Fatalf("no link on the public URL:\n%s", text)
	}
	tok := servertest.LinkToken(t, text, "/verify-email")
	v := s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK).Map(t)
	s.As(t, v["access_token"].(string), "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
	if n := len(s.Mails(t)); n != 0 {
		t.Fatalf("%d mails in the file directory with the smtp driver", n)
	}
}

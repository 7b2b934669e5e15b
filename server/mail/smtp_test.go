package mail

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	netmail "net/mail"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// received is one message as the test SMTP server saw it.
type received struct {
	from string
	to   []string
	data []byte
	user string // authenticated user, "" without AUTH
}

// testSMTP is an in-process SMTP server on 127.0.0.1 without TLS.
type testSMTP struct {
	mu   sync.Mutex
	msgs []received
	user string // when set, AUTH PLAIN with user/"secret" is required
}

func (b *testSMTP) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &testSession{backend: b}, nil
}

func (b *testSMTP) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

type testSession struct {
	backend *testSMTP
	cur     received
}

func (s *testSession) AuthMechanisms() []string {
	if s.backend.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.backend.user || pass != "secret" {
			return errors.New("bad credentials")
		}
		s.cur.user = user
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.backend.user != "" && s.cur.user == "" {
		return smtp.ErrAuthRequired
	}
	s.cur.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = b
	s.backend.mu.Lock()
	s.backend.msgs = append(s.backend.msgs, s.cur)
	s.backend.mu.Unlock()
	return nil
}

func (s *testSession) Reset()        { s.cur = received{user: s.cur.user} }
func (s *testSession) Logout() error { return nil }

// mustSMTPServer starts backend on 127.0.0.1:0 and returns its host and port.
// With cfg it offers STARTTLS (implicit false) or speaks TLS from the first
// byte (implicit true); without, it is cleartext only.
func mustSMTPServer(tb testing.TB, backend *testSMTP, cfg *tls.Config, implicit bool) (string, int) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := smtp.NewServer(backend)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = cfg == nil
	srv.TLSConfig = cfg
	if implicit {
		l = tls.NewListener(l, cfg)
	}
	go srv.Serve(l)
	tb.Cleanup(func() { srv.Close() })
	host, port, _ := net.SplitHostPort(l.Addr().String())
	p, _ := strconv.Atoi(port)
	return host, p
}

func TestSMTPDriver(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		backend := &testSMTP{}
		host, port := mustSMTPServer(t, backend, nil, false)
		opts := SMTPOptions{Host: host, Port: port, TLS: TLSNone}
		s, err := New(Options{Driver: DriverSMTP, From: "licensectl <no-reply@licensectl.test>", SMTP: opts})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		want := testMessage()
		if err := s.Send(context.Background(), want); err != nil {
			t.Fatalf("Send: %v", err)
		}

		msgs := backend.messages()
		if len(msgs) != 1 {
			t.Fatalf("server got %d messages, want 1", len(msgs))
		}
		got := msgs[0]
		if got.from != "no-reply@licensectl.test" {
			t.Errorf("got MAIL FROM %q, want no-reply@licensectl.test", got.from)
		}
		if len(got.to) != 1 || got.to[0] != "alice@example.com" {
			t.Errorf("got RCPT TO %v, want [alice@example.com]", got.to)
		}
		msg, err := netmail.ReadMessage(bytes.NewReader(got.data))
		if err != nil {
			t.Fatalf("ReadMessage: %v\n%s", err, got.data)
		}
		if s := msg.Header.Get("Subject"); s != want.Subject {
			t.Errorf("got Subject %q, want %q", s, want.Subject)
		}
		if f := msg.Header.Get("From"); f != `"licensectl" <no-reply@licensectl.test>` {
			t.Errorf("got From header %q", f)
		}
		if to := msg.Header.Get("To"); to != "<alice@example.com>" {
			t.Errorf("got To header %q", to)
		}
		body, _ := io.ReadAll(msg.Body)
		if string(body) != crlf(want.Text) {
			t.Errorf("got body %q, want %q", body, crlf(want.Text))
		}
	})

	// go-mail refuses PLAIN and LOGIN on an unencrypted connection, so a
	// misconfigured "tls: none" cannot leak the relay password.
	t.Run("ErrNoCleartextAuth", func(t *testing.T) {
		backend := &testSMTP{user: "relay-user"}
		host, port := mustSMTPServer(t, backend, nil, false)
		s, err := New(Options{Driver: DriverSMTP, From: "no-reply@licensectl.test",
			SMTP: SMTPOptions{Host: host, Port: port, TLS: TLSNone, Username: "relay-user", Password: "secret"}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := s.Send(context.Background(), testMessage()); err == nil {
			t.Fatal("Send with PLAIN auth over cleartext = nil, want an error")
		}
		if n := len(backend.messages()); n != 0 {
			t.Fatalf("server got %d messages, want 0", n)
		}
	})

	t.Run("ErrRejected", func(t *testing.T) {
		backend := &testSMTP{user: "relay-user"}
		host, port := mustSMTPServer(t, backend, nil, false)
		s, err := New(Options{Driver: DriverSMTP, From: "no-reply@licensectl.test",
			SMTP: SMTPOptions{Host: host, Port: port, TLS: TLSNone}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := s.Send(context.Background(), testMessage()); err == nil {
			t.Fatal("Send to a server requiring AUTH without credentials = nil, want an error")
		}
	})

	t.Run("ErrUnreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close() // nothing listens there now
		s, err := New(Options{Driver: DriverSMTP, From: "no-reply@licensectl.test",
			SMTP: SMTPOptions{Host: "127.0.0.1", Port: port, TLS: TLSNone}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := s.Send(context.Background(), testMessage()); err == nil {
			t.Fatal("Send to a closed port = nil, want an error")
		}
	})
}

// mustTLS returns a server config with a fresh self-signed certificate for
// 127.0.0.1 and a client config trusting exactly that certificate.
func mustTLS(tb testing.TB) (server, client *tls.Config) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	client = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	return server, client
}

// TestSMTPDriverTLS sends with credentials over STARTTLS and implicit TLS;
// the server requires AUTH PLAIN, which go-mail offers only once encrypted.
func TestSMTPDriverTLS(t *testing.T) {
	for _, mode := range []string{TLSStartTLS, TLSImplicit} {
		t.Run("OK/"+mode, func(t *testing.T) {
			serverTLS, clientTLS := mustTLS(t)
			backend := &testSMTP{user: "relay-user"}
			host, port := mustSMTPServer(t, backend, serverTLS, mode == TLSImplicit)
			snd, err := New(Options{Driver: DriverSMTP, From: "no-reply@licensectl.test",
				SMTP: SMTPOptions{Host: host, Port: port, TLS: mode, Username: "relay-user", Password: "secret"}})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			snd.(*smtpSender).tlsConfig = clientTLS
			if err := snd.Send(context.Background(), testMessage()); err != nil {
				t.Fatalf("Send: %v", err)
			}
			msgs := backend.messages()
			if len(msgs) != 1 || msgs[0].user != "relay-user" {
				t.Fatalf("server got %+v, want one message from relay-user", msgs)
			}
		})
	}

	t.Run("ErrUntrustedCertificate", func(t *testing.T) {
		serverTLS, _ := mustTLS(t)
		_, otherClient := mustTLS(t)
		backend := &testSMTP{}
		host, port := mustSMTPServer(t, backend, serverTLS, false)
		snd, err := New(Options{Driver: DriverSMTP, From: "no-reply@licensectl.test",
			SMTP: SMTPOptions{Host: host, Port: port, TLS: TLSStartTLS}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		snd.(*smtpSender).tlsConfig = otherClient
		if err := snd.Send(context.Background(), testMessage()); err == nil {
			t.Fatal("Send to a server with an untrusted certificate = nil, want an error")
		}
		if n := len(backend.messages()); n != 0 {
			t.Fatalf("server got %d messages, want 0", n)
		}
	})
}

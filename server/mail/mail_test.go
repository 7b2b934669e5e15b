package mail

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	netmail "net/mail"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// A long link with "=" and "&" is what quoted-printable would mangle.
const link = "http://127.0.0.1:8080/verify-email?token=7KQ2M9XW4THB3ZP0D6RNC5VYE7KQ2M9XW4THB3ZP0D6RNC5VYEabcdefghijklmnopqrstuvwxyz0123456789&next=%2Fdashboard"

func testMessage() Message {
	return Message{
		To:      "alice@example.com",
		Subject: "Verify your e-mail address",
		Text:    "Hello Alice,\n\nOpen this link to verify your address:\n" + link + "\n\nÇa marche — merci.\n",
	}
}

func TestNewErrInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"unknown driver", Options{Driver: "carrier-pigeon", From: "a@example.com"}},
		{"no driver", Options{From: "a@example.com"}},
		{"bad from", Options{Driver: DriverLog, From: "not an address"}},
		{"file without dir", Options{Driver: DriverFile, From: "a@example.com"}},
		{"smtp without host", Options{Driver: DriverSMTP, From: "a@example.com"}},
		{"smtp bad tls", Options{Driver: DriverSMTP, From: "a@example.com", SMTP: SMTPOptions{Host: "h", TLS: "ssl3"}}},
		{"smtp bad port", Options{Driver: DriverSMTP, From: "a@example.com", SMTP: SMTPOptions{Host: "h", Port: 70000}}},
		{"smtp user without password", Options{Driver: DriverSMTP, From: "a@example.com", SMTP: SMTPOptions{Host: "h", Username: "u"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := New(tt.opts); err == nil {
				t.Fatalf("New(%+v) = %T, nil; want an error", tt.opts, s)
			}
		})
	}
}

func TestSendErrInvalidMessage(t *testing.T) {
	s, err := New(Options{Driver: DriverFile, Dir: t.TempDir(), From: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]Message{
		"bad recipient":      {To: "nobody", Subject: "x", Text: "x"},
		"header injection":   {To: "a@example.com", Subject: "x\r\nBcc: eve@example.com", Text: "x"},
		"newline in subject": {To: "a@example.com", Subject: "x\ny", Text: "x"},
	} {
		if err := s.Send(context.Background(), m); err == nil {
			t.Errorf("%s: Send = nil, want an error", name)
		}
	}
}

func TestFileDriver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "mail")
	s, err := New(Options{Driver: DriverFile, Dir: dir, From: "licensectl <no-reply@licensectl.test>"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("got dir mode %o, want 700", got)
	}

	ctx := context.Background()
	want := testMessage()
	if err := s.Send(ctx, want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	second := want
	second.Subject = "Second"
	if err := s.Send(ctx, second); err != nil {
		t.Fatalf("Send: %v", err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 {
		t.Fatalf("got files %v, want 2 .eml files and no leftovers", names)
	}
	nameRE := regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{16}\.eml$`)
	for _, n := range names {
		if !nameRE.MatchString(n) {
			t.Errorf("got file name %q, want %s", n, nameRE)
		}
	}
	sort.Strings(names) // ReadDir sorts already; be explicit about the contract

	path := filepath.Join(dir, names[0])
	fi, err = os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("got file mode %o, want 600", got)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("ReadMessage: %v\n%s", err, raw)
	}
	h := msg.Header
	if got, want := h.Get("Subject"), want.Subject; got != want {
		t.Errorf("got Subject %q, want %q", got, want)
	}
	if got, err := h.AddressList("To"); err != nil || len(got) != 1 || got[0].Address != "alice@example.com" {
		t.Errorf("got To %v (%v), want alice@example.com", got, err)
	}
	if got, err := h.AddressList("From"); err != nil || len(got) != 1 || got[0].Address != "no-reply@licensectl.test" || got[0].Name != "licensectl" {
		t.Errorf("got From %v (%v), want licensectl <no-reply@licensectl.test>", got, err)
	}
	if _, err := h.Date(); err != nil {
		t.Errorf("Date header %q: %v", h.Get("Date"), err)
	}
	if id := h.Get("Message-Id"); !regexp.MustCompile(`^<[^@<>]+@licensectl\.test>$`).MatchString(id) {
		t.Errorf("got Message-ID %q, want <...@licensectl.test>", id)
	}
	if got := h.Get("Mime-Version"); got != "1.0" {
		t.Errorf("got MIME-Version %q, want 1.0", got)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") || !strings.Contains(strings.ToLower(got), "charset=utf-8") {
		t.Errorf("got Content-Type %q, want text/plain; charset=UTF-8", got)
	}
	if got := h.Get("Content-Transfer-Encoding"); got != "8bit" {
		t.Errorf("got Content-Transfer-Encoding %q, want 8bit", got)
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(body), crlf(want.Text); got != want {
		t.Errorf("got body %q, want %q", got, want)
	}
	// The link must be findable on one line of the raw file, as a person
	// reading the .eml in a pager would look for it.
	if !bytes.Contains(raw, []byte("\r\n"+link+"\r\n")) {
		t.Errorf("raw file does not hold the link on one line:\n%s", raw)
	}
}

func TestLogDriver(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	s, err := New(Options{Driver: DriverLog, From: "no-reply@licensectl.test", Logger: logger})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	m := testMessage()
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatalf("Send: %v", err)
	}
	out := buf.String()
	for _, want := range []string{`"level":"INFO"`, `"to":"alice@example.com"`, `"subject":"Verify your e-mail address"`, link} {
		if !strings.Contains(out, want) {
			t.Errorf("log %s does not contain %s", out, want)
		}
	}
}

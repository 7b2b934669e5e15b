package server_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// TestAccountMailCap (design §8): resend-verification and forgot-password
// send at most 3 mails per address per 10 minutes, whatever asks, and their
// answers stay byte-identical for registered, unknown and capped addresses.
func TestAccountMailCap(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	pending := newAddress("cap")
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(pending))) // mail 1

	answers := map[string][]byte{}
	for i := range 20 {
		for _, path := range []string{"/v1/mgmt/auth/resend-verification", "/v1/mgmt/auth/forgot-password"} {
			for _, email := range []string{pending, org.OwnerEmail, newAddress("nobody")} {
				r := s.Do(t, "POST", path, map[string]any{"email": email}).Want(t, http.StatusOK)
				if prev, ok := answers[path]; ok && !bytes.Equal(prev, r.Body) {
					t.Fatalf("%s answer %d for %s differs:\n%s\n%s", path, i, email, prev, r.Body)
				}
				answers[path] = r.Body
			}
		}
	}
	if n := len(s.MailsTo(t, pending)); n != 3 {
		t.Fatalf("%d mails to one address in 10 minutes, want 3", n)
	}
	if n := len(s.MailsTo(t, org.OwnerEmail)); n != 3 {
		t.Fatalf("%d reset mails to the owner in 10 minutes, want 3", n)
	}
	s.Clock().Advance(10 * time.Minute)
	wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}))
	if n := len(s.MailsTo(t, org.OwnerEmail)); n != 4 {
		t.Fatalf("%d mails after the window, want 4", n)
	}
}

// BenchmarkForgotPassword measures the answer time of forgot-password for a
// registered and an unknown address; both do the same work (validate and
// queue), which docs/reliability.md records.
func BenchmarkForgotPassword(b *testing.B) {
	s := servertest.New(b)
	org := s.NewOrg(b)
	for _, c := range []struct{ name, email string }{{"Registered", org.OwnerEmail}, {"Unknown", "nobody@example.com"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s.Do(b, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": c.email})
			}
		})
	}
}

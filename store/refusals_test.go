package store

import (
	"testing"
	"time"
)

func TestRefusals(t *testing.T) {
	verified := PartnerIdentity{Issuer: "https://id.example", Subject: "s1", Email: " Ada@Example.COM ", EmailVerified: true}
	unverified := PartnerIdentity{Issuer: "i", Subject: "s", Email: "a@b.test"}
	for _, tt := range []struct {
		name      string
		check     func() error
		code, msg string
	}{
		{"OK/PartnerIdentity", func() error { _, err := verified.Check(); return err }, "", ""},
		{"ErrPartnerFailed/NoSubject", func() error { _, err := PartnerIdentity{Issuer: "i", Email: "a@b.test"}.Check(); return err },
			ECodePartnerFailed, "the provider did not identify the user"},
		{"ErrPartnerFailed/NoEmail", func() error { _, err := PartnerIdentity{Issuer: "i", Subject: "s"}.Check(); return err },
			ECodePartnerFailed, "the provider did not share a usable e-mail address; allow the e-mail scope"},
		{"OK/Linkable", verified.CheckLinkable, "", ""},
		{"ErrPartnerEmailUnverified", unverified.CheckLinkable, ECodePartnerEmailUnverified,
			"the provider has not verified this e-mail address; verify it there and sign in again, or sign up with a password"},
		{"ErrForbidden/Banned", func() error { return ErrAccountRefused(UserBanned) }, ECodeForbidden, "this account is banned"},
		{"ErrSessionInvalid", func() error { return ErrSessionInvalid("license_suspended") }, ECodeSessionInvalid, "the session is no longer valid: license_suspended"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if ErrorCode(err) != tt.code || (err != nil && ErrorMessage(err) != tt.msg) {
				t.Fatalf("got %v, want %s: %q", err, tt.code, tt.msg)
			}
		})
	}
	if email, _ := verified.Check(); email != "ada@example.com" {
		t.Fatalf("normalized e-mail = %q", email)
	}
	for _, tt := range []struct {
		retry time.Duration
		want  int
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {time.Minute, 60}} {
		if e := ErrSeatsExhausted(2, tt.retry); e.RetryAfter != tt.want || e.Code != ECodeSeatsExhausted {
			t.Fatalf("ErrSeatsExhausted(%v) = %+v, want Retry-After %d", tt.retry, e, tt.want)
		}
	}
}

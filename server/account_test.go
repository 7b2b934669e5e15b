package server_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

var signupSeq atomic.Int64

// newAddress returns an address nobody has used in this test binary.
func newAddress(prefix string) string {
	return prefix + strconv.FormatInt(signupSeq.Add(1), 10) + "@example.com"
}

// signupBody is a valid signup request for email.
func signupBody(email string) map[string]any {
	return map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "organization_name": "Analytical Engines",
		"email": email, "password": servertest.Password, "phone": "+44 20 7946 0000", "tos_accepted_version": "2026-01",
	}
}

// signupAndVerify signs up email, reads the verification mail and verifies,
// returning the verify-email answer.
func signupAndVerify(t *testing.T, s *servertest.Server, email string) map[string]any {
	t.Helper()
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
	tok := verifyToken(t, s, email)
	return s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK).Map(t)
}

// verifyToken is the token of the newest verification mail to email.
func verifyToken(t *testing.T, s *servertest.Server, email string) string {
	t.Helper()
	mails := s.MailsTo(t, email)
	if len(mails) == 0 {
		t.Fatalf("no mail to %s", email)
	}
	return servertest.LinkToken(t, mails[len(mails)-1].Body, "/verify-email")
}

// wantMessage fails unless the body is exactly {success:true, message}.
func wantMessage(t *testing.T, r *servertest.Resp) {
	t.Helper()
	m := r.Want(t, http.StatusOK).Map(t)
	servertest.WantKeys(t, m, "success", "message")
	if m["success"] != true || m["message"] == "" {
		t.Fatalf("body = %s", r.Body)
	}
}

// wantFieldError fails unless r is a validation error whose message names field.
func wantFieldError(t *testing.T, r *servertest.Resp, field string) {
	t.Helper()
	r.WantError(t, http.StatusBadRequest, "validation_failed")
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	r.JSON(t, &body)
	if !strings.Contains(body.Error.Message, field) {
		t.Fatalf("message %q does not name %s", body.Error.Message, field)
	}
}

func TestSignup(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)

	t.Run("OK", func(t *testing.T) {
		email := newAddress("ada")
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)))
		mails := s.MailsTo(t, email)
		if len(mails) != 1 {
			t.Fatalf("%d mails to %s, want 1", len(mails), email)
		}
		tok := servertest.LinkToken(t, mails[0].Body, "/verify-email")
		if !strings.Contains(mails[0].Body, s.Config.Server.PublicURL+"/verify-email?token="+tok) {
			t.Fatalf("mail lacks the link on the public URL:\n%s", mails[0].Body)
		}
		if !strings.Contains(mails[0].Body, "\n"+tok+"\n") {
			t.Fatalf("mail lacks the token on a line of its own:\n%s", mails[0].Body)
		}

		v := s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, v, "success", "access_token", "organization_id")
		if v["success"] != true || v["access_token"] == "" {
			t.Fatalf("verify = %v", v)
		}
		at := v["access_token"].(string)
		org := s.As(t, at, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if org["id"] != v["organization_id"] || org["email_verified"] != true || org["name"] != "Analytical Engines" || org["slug"] != "analytical-engines" {
			t.Fatalf("organization = %v", org)
		}
		// The verified owner may write at once.
		s.As(t, at, "POST", "/v1/mgmt/applications", map[string]any{"name": "First App"}).Want(t, http.StatusCreated)

		l := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": strings.ToUpper(email), "password": servertest.Password}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, l, "access_token", "email_verified")
		if l["email_verified"] != true {
			t.Fatalf("login = %v", l)
		}
	})

	t.Run("RegisteredAddressIdentical", func(t *testing.T) {
		email := newAddress("twice")
		first := s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		again := signupBody(email)
		again["organization_name"], again["password"] = "Somebody Else", "another quite long passphrase 7"
		second := s.Do(t, "POST", "/v1/mgmt/auth/signup", again).Want(t, http.StatusOK)
		if !bytes.Equal(first.Body, second.Body) {
			t.Fatalf("bodies differ:\n%s\n%s", first.Body, second.Body)
		}
		for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control"} {
			if first.Header.Get(h) != second.Header.Get(h) {
				t.Fatalf("%s differs: %q vs %q", h, first.Header.Get(h), second.Header.Get(h))
			}
		}
		// A seeded, verified owner's address answers the same too.
		org := s.NewOrg(t)
		third := s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(org.OwnerEmail)).Want(t, http.StatusOK)
		if !bytes.Equal(first.Body, third.Body) {
			t.Fatalf("bodies differ:\n%s\n%s", first.Body, third.Body)
		}

		// The owner got a notice instead of a second verification link, and
		// the first link still works for the first password.
		mails := s.MailsTo(t, email)
		if len(mails) != 2 || strings.Contains(mails[1].Body, "/verify-email?token=") || !strings.Contains(mails[1].Body, "already has one") {
			t.Fatalf("mails = %+v", mails)
		}
		if n := len(s.MailsTo(t, org.OwnerEmail)); n != 1 {
			t.Fatalf("%d mails to the seeded owner, want 1 notice", n)
		}
		tok := servertest.LinkToken(t, mails[0].Body, "/verify-email")
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK)
		s.Login(t, email, servertest.Password)
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": "another quite long passphrase 7"}).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
	})

	t.Run("OrganizationSlugsUnique", func(t *testing.T) {
		a := signupAndVerify(t, s, newAddress("slug"))
		b := signupAndVerify(t, s, newAddress("slug"))
		sa := s.As(t, a["access_token"].(string), "GET", "/v1/mgmt/organizations/me", nil).Map(t)["slug"]
		sb := s.As(t, b["access_token"].(string), "GET", "/v1/mgmt/organizations/me", nil).Map(t)["slug"]
		if sa == sb {
			t.Fatalf("both organizations have slug %v", sa)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		s := servertest.New(t, func(c *config.Config) { c.Signup.BlockedDomains = []string{"blocked.example"} })
		cases := []struct {
			name, field string
			mod         func(map[string]any)
		}{
			{"NoFirstName", "first_name", func(b map[string]any) { delete(b, "first_name") }},
			{"NoLastName", "last_name", func(b map[string]any) { b["last_name"] = "  " }},
			{"NoOrganization", "organization_name", func(b map[string]any) { delete(b, "organization_name") }},
			{"LongOrganization", "organization_name", func(b map[string]any) { b["organization_name"] = strings.Repeat("o", 101) }},
			{"NoEmail", "email", func(b map[string]any) { delete(b, "email") }},
			{"BadEmail", "email", func(b map[string]any) { b["email"] = "not-an-address" }},
			{"NoPassword", "password", func(b map[string]any) { delete(b, "password") }},
			{"ShortPassword", "password", func(b map[string]any) { b["password"] = "short" }},
			{"CommonPassword", "password", func(b map[string]any) { b["password"] = "password123" }},
			{"PasswordHasEmail", "password", func(b map[string]any) {
				b["email"] = "zanzibar@example.com"
				b["password"] = "zanzibar rocks forever 9"
			}},
			{"DisposableDomain", "email", func(b map[string]any) { b["email"] = "x@mailinator.com" }},
			{"DisposableSubdomain", "email", func(b map[string]any) { b["email"] = "x@a.b.mailinator.com" }},
			{"BlockedDomain", "email", func(b map[string]any) { b["email"] = "x@blocked.example" }},
			{"NoTOS", "tos_accepted_version", func(b map[string]any) { delete(b, "tos_accepted_version") }},
			{"WrongType", "phone", func(b map[string]any) { b["phone"] = 5551234 }},
			{"LongPhone", "phone", func(b map[string]any) { b["phone"] = strings.Repeat("1", 33) }},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				b := signupBody(newAddress("invalid"))
				c.mod(b)
				wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", b), c.field)
			})
		}
		if n := len(s.Mails(t)); n != 0 {
			t.Fatalf("%d mails sent for invalid signups", n)
		}
	})

	t.Run("ErrInvalidJSON", func(t *testing.T) {
		s.Do(t, "POST", "/v1/mgmt/auth/signup", "{").WantError(t, http.StatusBadRequest, "invalid_json")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", "").WantError(t, http.StatusBadRequest, "invalid_json")
	})

	t.Run("ErrBodyTooLarge", func(t *testing.T) {
		big := `{"first_name":"` + strings.Repeat("x", 1<<20) + `"}`
		s.Do(t, "POST", "/v1/mgmt/auth/signup", big).WantError(t, http.StatusRequestEntityTooLarge, "body_too_large")
	})

	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		s.Do(t, "GET", "/v1/mgmt/auth/signup", nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
	})
}

func TestUnverifiedMember(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	email := newAddress("unverified")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)

	l := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": servertest.Password}).Want(t, http.StatusOK).Map(t)
	if l["email_verified"] != false {
		t.Fatalf("login = %v", l)
	}
	tok := l["access_token"].(string)

	t.Run("OK", func(t *testing.T) {
		org := s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
		if org["email_verified"] != false {
			t.Fatalf("organization = %v", org)
		}
		s.As(t, tok, "GET", "/v1/mgmt/applications", nil).Want(t, http.StatusOK)
		s.As(t, tok, "GET", "/v1/mgmt/organizations/members", nil).Want(t, http.StatusOK)
	})

	t.Run("ErrEmailNotVerified", func(t *testing.T) {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/v1/mgmt/applications", map[string]any{"name": "Nope"}},
			{"POST", "/v1/mgmt/api-keys", map[string]any{"label": "nope"}},
			{"PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": "Renamed"}},
			{"POST", "/v1/mgmt/organizations/members", map[string]any{"email": newAddress("m"), "password": servertest.Password, "role": "viewer"}},
		} {
			s.As(t, tok, c.method, c.path, c.body).WantError(t, http.StatusForbidden, "email_not_verified")
		}
	})

	t.Run("ResendThenVerify", func(t *testing.T) {
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/resend-verification", map[string]any{"email": email}))
		mails := s.MailsTo(t, email)
		if len(mails) != 2 {
			t.Fatalf("%d mails, want 2", len(mails))
		}
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": verifyToken(t, s, email)}).Want(t, http.StatusOK)
		// The same session may now write: verification is read per request.
		s.As(t, tok, "POST", "/v1/mgmt/applications", map[string]any{"name": "Now Allowed"}).Want(t, http.StatusCreated)
		// Nothing more to verify: no further mail.
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/resend-verification", map[string]any{"email": email}))
		if n := len(s.MailsTo(t, email)); n != 2 {
			t.Fatalf("%d mails after resend to a verified address, want 2", n)
		}
	})
}

func TestVerifyEmail(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)

	t.Run("ErrInvalidToken", func(t *testing.T) {
		email := newAddress("verify")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		tok := verifyToken(t, s, email)
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": "nonsense"}).WantError(t, http.StatusUnauthorized, "invalid_token")
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).Want(t, http.StatusOK)
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).WantError(t, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("ErrInvalidTokenExpired", func(t *testing.T) {
		email := newAddress("late")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		tok := verifyToken(t, s, email)
		s.Clock().Advance(24*time.Hour + time.Second)
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": tok}).WantError(t, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("ErrInvalidTokenWrongPurpose", func(t *testing.T) {
		org := s.NewOrg(t)
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		reset := servertest.LinkToken(t, s.MailsTo(t, org.OwnerEmail)[0].Body, "/reset-password")
		s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{"token": reset}).WantError(t, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/verify-email", map[string]any{}), "token")
	})
}

func TestResendAndForgotAnswerAlike(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	unverified := newAddress("pending")
	s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(unverified)).Want(t, http.StatusOK)

	for _, path := range []string{"/v1/mgmt/auth/resend-verification", "/v1/mgmt/auth/forgot-password"} {
		t.Run("OK"+path[strings.LastIndexByte(path, '/')+1:], func(t *testing.T) {
			var bodies [][]byte
			for _, email := range []string{org.OwnerEmail, unverified, newAddress("nobody")} {
				r := s.Do(t, "POST", path, map[string]any{"email": email})
				wantMessage(t, r)
				bodies = append(bodies, r.Body)
			}
			for _, b := range bodies[1:] {
				if !bytes.Equal(b, bodies[0]) {
					t.Fatalf("bodies differ:\n%s\n%s", bodies[0], b)
				}
			}
		})
	}

	t.Run("MailOnlyWhenAppropriate", func(t *testing.T) {
		// Owner (verified): a reset mail only. Unverified: signup, resend and reset mails.
		if m := s.MailsTo(t, org.OwnerEmail); len(m) != 1 || m[0].Subject != "Reset your password" {
			t.Fatalf("owner mails = %+v", m)
		}
		if m := s.MailsTo(t, unverified); len(m) != 3 {
			t.Fatalf("unverified mails = %d, want 3", len(m))
		}
		for _, m := range s.Mails(t) {
			if strings.HasPrefix(m.To, "nobody") {
				t.Fatalf("mail sent to an unknown address: %+v", m)
			}
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": "nope"}), "email")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/resend-verification", map[string]any{}), "email")
	})
}

func TestResetPassword(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	const newPassword = "a brand new passphrase for 2027"

	t.Run("OK", func(t *testing.T) {
		org := s.NewOrg(t)
		tok1 := s.OwnerToken(t, org)
		tok2 := s.OwnerToken(t, org)
		s.As(t, tok1, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)

		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		mails := s.MailsTo(t, org.OwnerEmail)
		reset := servertest.LinkToken(t, mails[len(mails)-1].Body, "/reset-password")
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": newPassword}))

		for _, tok := range []string{tok1, tok2} {
			s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		}
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": org.OwnerPassword}).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
		s.As(t, s.Login(t, org.OwnerEmail, newPassword), "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
		// API keys are not sessions: they keep working.
		s.As(t, org.APIKey, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
	})

	t.Run("ErrInvalidToken", func(t *testing.T) {
		org := s.NewOrg(t)
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		reset := servertest.LinkToken(t, s.MailsTo(t, org.OwnerEmail)[0].Body, "/reset-password")
		s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": "nonsense", "new_password": newPassword}).
			WantError(t, http.StatusUnauthorized, "invalid_token")
		s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": newPassword}).Want(t, http.StatusOK)
		s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": newPassword + "!"}).
			WantError(t, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("ErrInvalidTokenExpired", func(t *testing.T) {
		org := s.NewOrg(t)
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		reset := servertest.LinkToken(t, s.MailsTo(t, org.OwnerEmail)[0].Body, "/reset-password")
		s.Clock().Advance(time.Hour + time.Second)
		s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": newPassword}).
			WantError(t, http.StatusUnauthorized, "invalid_token")
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		org := s.NewOrg(t)
		s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": org.OwnerEmail}).Want(t, http.StatusOK)
		reset := servertest.LinkToken(t, s.MailsTo(t, org.OwnerEmail)[0].Body, "/reset-password")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": "short"}), "new_password")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset}), "new_password")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"new_password": newPassword}), "token")
		// A refused password does not spend the token.
		s.Do(t, "POST", "/v1/mgmt/auth/reset-password", map[string]any{"token": reset, "new_password": newPassword}).Want(t, http.StatusOK)
	})
}

func TestLoginLogout(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)

	t.Run("OK", func(t *testing.T) {
		r := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": org.OwnerPassword}).Want(t, http.StatusOK)
		m := r.Map(t)
		servertest.WantKeys(t, m, "access_token", "email_verified")
		tok := m["access_token"].(string)
		if m["email_verified"] != true || strings.Count(tok, ".") != 2 {
			t.Fatalf("login = %v", m)
		}
		other := s.OwnerToken(t, org)

		lo := s.As(t, tok, "POST", "/v1/mgmt/auth/logout", nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, lo, "success")
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		s.As(t, tok, "POST", "/v1/mgmt/auth/logout", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		// Logout ends only its own session.
		s.As(t, other, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
	})

	t.Run("ErrInvalidCredentials", func(t *testing.T) {
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": "wrong password entirely"}).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
		unknown := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": newAddress("ghost"), "password": "wrong password entirely"})
		unknown.WantError(t, http.StatusUnauthorized, "invalid_credentials")
		malformed := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": "not an address", "password": "x"})
		malformed.WantError(t, http.StatusUnauthorized, "invalid_credentials")
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"password": "x"}), "email")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail}), "password")
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		s.Do(t, "POST", "/v1/mgmt/auth/logout", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		tok := s.OwnerToken(t, org)
		parts := strings.Split(tok, ".")
		for _, bad := range []string{
			"garbage",
			parts[0] + "." + parts[1] + ".AAAA", // bad signature
			"eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + parts[1] + ".",                      // alg none
			"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + parts[1] + "." + parts[2],          // alg swapped
			strings.TrimSuffix(parts[0], "=") + "." + parts[1] + "." + parts[2] + "junk", // trailing junk
		} {
			s.As(t, bad, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		}
		// A token of another server (another signing key) is refused.
		foreign := servertest.New(t)
		forg := foreign.NewOrg(t)
		s.As(t, foreign.OwnerToken(t, forg), "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})

	t.Run("ErrUnauthenticatedExpired", func(t *testing.T) {
		tok := s.OwnerToken(t, org)
		s.Clock().Advance(s.Config.Auth.SessionTTL - time.Second)
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
		s.Clock().Advance(2 * time.Second)
		s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		// Logout is for dashboard sessions; an API key has none.
		s.As(t, org.APIKey, "POST", "/v1/mgmt/auth/logout", nil).WantError(t, http.StatusForbidden, "forbidden")
	})
}

func TestSessionSurvivesRestart(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	tok := s.OwnerToken(t, org)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again := servertest.Start(t, s.Config)
	again.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
}

func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.LoginFailures = 3
		c.RateLimit.Account = 1000
		c.RateLimit.Window = time.Minute
	})
	org := s.NewOrg(t)
	wrong := map[string]any{"email": org.OwnerEmail, "password": "not the password at all"}

	t.Run("ErrRateLimited", func(t *testing.T) {
		for range 3 {
			s.Do(t, "POST", "/v1/mgmt/auth/login", wrong).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		r := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": org.OwnerEmail, "password": org.OwnerPassword})
		wantRateLimited(t, r)

		// Another account is not affected.
		other := s.NewOrg(t)
		s.Login(t, other.OwnerEmail, other.OwnerPassword)

		// Unknown addresses are throttled alike.
		ghost := map[string]any{"email": newAddress("ghost"), "password": "not the password at all"}
		for range 3 {
			s.Do(t, "POST", "/v1/mgmt/auth/login", ghost).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		wantRateLimited(t, s.Do(t, "POST", "/v1/mgmt/auth/login", ghost))
	})

	t.Run("ErrRateLimitedParallel", func(t *testing.T) {
		target := s.NewOrg(t)
		body := map[string]any{"email": target.OwnerEmail, "password": "not the password at all"}
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.Do(t, "POST", "/v1/mgmt/auth/login", body)
				mu.Lock()
				statuses[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if statuses[http.StatusUnauthorized] != 3 || statuses[http.StatusTooManyRequests] != 9 {
			t.Fatalf("statuses = %v, want 3 × 401 and 9 × 429", statuses)
		}
	})

	t.Run("OKAfterWindow", func(t *testing.T) {
		s.Clock().Advance(time.Minute + time.Second)
		s.Login(t, org.OwnerEmail, org.OwnerPassword)
	})

	t.Run("OKSuccessClearsFailures", func(t *testing.T) {
		for range 2 {
			s.Do(t, "POST", "/v1/mgmt/auth/login", wrong).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		s.Login(t, org.OwnerEmail, org.OwnerPassword)
		for range 2 {
			s.Do(t, "POST", "/v1/mgmt/auth/login", wrong).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		}
		s.Login(t, org.OwnerEmail, org.OwnerPassword)
	})
}

func TestAccountRateLimitPerAddress(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Account = 4
		c.RateLimit.Window = time.Minute
	})
	t.Run("ErrRateLimited", func(t *testing.T) {
		calls := []struct {
			path string
			body any
		}{
			{"/v1/mgmt/auth/signup", signupBody(newAddress("ip"))},
			{"/v1/mgmt/auth/forgot-password", map[string]any{"email": newAddress("ip")}},
			{"/v1/mgmt/auth/resend-verification", map[string]any{"email": newAddress("ip")}},
			{"/v1/mgmt/auth/verify-email", map[string]any{"token": "x"}},
		}
		for _, c := range calls {
			r := s.Do(t, "POST", c.path, c.body)
			if r.Status == http.StatusTooManyRequests {
				t.Fatalf("%s throttled early", c.path)
			}
			if r.Header.Get("RateLimit-Limit") != "4" {
				t.Fatalf("RateLimit-Limit = %q", r.Header.Get("RateLimit-Limit"))
			}
		}
		for _, p := range []string{"/v1/mgmt/auth/login", "/v1/mgmt/auth/reset-password", "/v1/mgmt/auth/signup"} {
			wantRateLimited(t, s.Do(t, "POST", p, map[string]any{"email": "a@example.com", "password": "x"}))
		}
		// The challenge is not an account call.
		s.Do(t, "GET", "/v1/mgmt/auth/challenge", nil).Want(t, http.StatusOK)
	})
	t.Run("OKAfterWindow", func(t *testing.T) {
		s.Clock().Advance(time.Minute)
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/forgot-password", map[string]any{"email": newAddress("ip")}))
	})
}

// wantRateLimited fails unless r is a 429 rate_limited with Retry-After and
// a matching retry_after_seconds.
func wantRateLimited(t *testing.T, r *servertest.Resp) {
	t.Helper()
	r.WantError(t, http.StatusTooManyRequests, "rate_limited")
	var body struct {
		Error struct {
			RetryAfter int `json:"retry_after_seconds"`
		} `json:"error"`
	}
	r.JSON(t, &body)
	if body.Error.RetryAfter < 1 || body.Error.RetryAfter > 60 || r.Header.Get("Retry-After") != strconv.Itoa(body.Error.RetryAfter) {
		t.Fatalf("Retry-After = %q, retry_after_seconds = %d", r.Header.Get("Retry-After"), body.Error.RetryAfter)
	}
}

package server_test

import (
	"net/http"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/antibot"
	"licensectl/server/servertest"
)

// solvedChallenge fetches a challenge from s and solves it as a browser would.
func solvedChallenge(t *testing.T, s *servertest.Server) string {
	t.Helper()
	r := s.Do(t, "GET", "/v1/mgmt/auth/challenge", nil).Want(t, http.StatusOK)
	servertest.WantKeys(t, r.Map(t), "algorithm", "challenge", "maxNumber", "salt", "signature")
	var c antibot.Challenge
	r.JSON(t, &c)
	if c.Algorithm != "SHA-256" {
		t.Fatalf("algorithm = %q", c.Algorithm)
	}
	payload, err := antibot.Solve(c)
	if err != nil {
		t.Fatal(err)
	}
	return payload
}

func TestSignupAltcha(t *testing.T) {
	t.Parallel()
	on := func(c *config.Config) { c.Signup.Challenge = "altcha" }
	s := servertest.New(t, on)

	withAltcha := func(email, payload string) map[string]any {
		b := signupBody(email)
		b["altcha"] = payload
		return b
	}

	t.Run("OK", func(t *testing.T) {
		email := newAddress("altcha")
		wantMessage(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(email, solvedChallenge(t, s))))
		if n := len(s.MailsTo(t, email)); n != 1 {
			t.Fatalf("%d mails, want 1", n)
		}
	})

	t.Run("ErrValidationFailedReplay", func(t *testing.T) {
		p := solvedChallenge(t, s)
		s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)).Want(t, http.StatusOK)
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)), "altcha")
	})

	t.Run("ErrValidationFailedMissing", func(t *testing.T) {
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(newAddress("altcha"))), "altcha")
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), "bm90IGEgcGF5bG9hZA==")), "altcha")
	})

	t.Run("ErrValidationFailedExpired", func(t *testing.T) {
		p := solvedChallenge(t, s)
		s.Clock().Advance(antibot.ChallengeTTL + time.Second)
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)), "altcha")
	})

	t.Run("InvalidRequestKeepsChallenge", func(t *testing.T) {
		p := solvedChallenge(t, s)
		bad := withAltcha(newAddress("altcha"), p)
		bad["password"] = "short"
		wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", bad), "password")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)).Want(t, http.StatusOK)
	})

	t.Run("ErrValidationFailedReplayAfterRestart", func(t *testing.T) {
		s := servertest.New(t, on)
		p := solvedChallenge(t, s)
		s.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)).Want(t, http.StatusOK)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		again := servertest.Start(t, s.Config)
		wantFieldError(t, again.Do(t, "POST", "/v1/mgmt/auth/signup", withAltcha(newAddress("altcha"), p)), "altcha")
	})

	t.Run("OffIgnoresField", func(t *testing.T) {
		off := servertest.New(t)
		wantMessage(t, off.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(newAddress("noaltcha"))))
		// The challenge is served even when signup does not ask for it.
		off.Do(t, "GET", "/v1/mgmt/auth/challenge", nil).Want(t, http.StatusOK)
	})
}

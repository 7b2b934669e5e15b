package storetest

import (
	"testing"
	"time"

	"licensectl/store"
)

// Lifetimes the account parts use.
const (
	sessionTTL = 12 * time.Hour
	verifyTTL  = 24 * time.Hour
	resetTTL   = time.Hour
)

// signup registers a new organization and its unverified owner.
func (f *fixture) signup(t *testing.T, email string) *store.SignupResult {
	t.Helper()
	r, err := f.be.Signup(f.ctx, store.SignupInput{FirstName: "Ada", LastName: "Owner", OrganizationName: "Signed up " + email,
		Email: email, Password: Password, Phone: "+5511987654321", TOSVersion: "2025-01", VerifyTTL: verifyTTL})
	if err != nil {
		t.Fatalf("Signup(%s): %v", email, err)
	}
	return r
}

// wantTokenState fails unless MailTokenState says state for token.
func (f *fixture) wantTokenState(t *testing.T, what, token, purpose, state string) {
	t.Helper()
	got, err := f.be.MailTokenState(f.ctx, token, purpose)
	if err != nil || got != state {
		t.Fatalf("%s: MailTokenState = %q, %v; want %q", what, got, err, state)
	}
}

// wantSession fails unless the dashboard session is live for member (or, with
// member "", unauthenticated).
func (f *fixture) wantSession(t *testing.T, what, id, member string) {
	t.Helper()
	r, err := f.be.DashboardSession(f.ctx, id)
	if member == "" {
		wantCode(t, what, err, store.ECodeUnauthenticated)
		return
	}
	if err != nil || r.Member.ID != member || r.Session.ID != id {
		t.Fatalf("%s: DashboardSession = %+v, %v; want member %s", what, r, err, member)
	}
}

// testSignup: signup creates an unverified owner and its organization, and
// an address already registered creates nothing.
func testSignup(t *testing.T, open Opener) {
	f := newFixture(t, open)
	r := f.signup(t, "Founder@Accounts.test")
	if r.Existing || r.Member.Email != "founder@accounts.test" || r.Member.EmailVerified || r.Organization == nil ||
		r.Member.OrgID != r.Organization.ID || r.Member.Role != store.RoleOwner || r.VerifyToken == "" {
		t.Fatalf("Signup = %+v", r)
	}
	again := f.signup(t, "founder@accounts.test")
	if !again.Existing || again.Member.ID != r.Member.ID || again.Organization != nil || again.VerifyToken != "" {
		t.Fatalf("Signup(registered address) = %+v", again)
	}
	for name, in := range map[string]store.SignupInput{
		"weak password": {FirstName: "A", LastName: "B", OrganizationName: "Weak", Email: "weak@accounts.test", Password: "short", Phone: "+5511987654321"},
		"bad address":   {FirstName: "A", LastName: "B", OrganizationName: "Bad", Email: "not an address", Password: Password, Phone: "+5511987654321"},
		"no org name":   {FirstName: "A", LastName: "B", OrganizationName: " ", Email: "noname@accounts.test", Password: Password, Phone: "+5511987654321"},
	} {
		_, err := f.be.Signup(f.ctx, in)
		wantCode(t, "Signup("+name+")", err, store.ECodeValidation)
	}
}

// testDashboardLogin: a dashboard session lives until it is revoked or
// expires.
func testDashboardLogin(t *testing.T, open Opener) {
	f := newFixture(t, open)
	r := f.signup(t, "login@accounts.test")
	l, err := f.be.Login(f.ctx, "LOGIN@accounts.test", Password, sessionTTL)
	if err != nil || l.Member.ID != r.Member.ID || !l.Session.ExpiresAt.Equal(f.clock.Now().Add(sessionTTL)) {
		t.Fatalf("Login = %+v, %v", l, err)
	}
	f.wantSession(t, "a new session", l.Session.ID, r.Member.ID)
	_, err = f.be.Login(f.ctx, "login@accounts.test", "wrong password 12345", sessionTTL)
	wantCode(t, "Login(wrong password)", err, store.ECodeInvalidCreds)
	_, err = f.be.Login(f.ctx, "nobody@accounts.test", Password, sessionTTL)
	wantCode(t, "Login(unknown)", err, store.ECodeInvalidCreds)
	for range 2 { // revoking twice is not an error
		if err := f.be.RevokeDashboardSession(f.ctx, l.Session.ID); err != nil {
			t.Fatalf("RevokeDashboardSession: %v", err)
		}
	}
	f.wantSession(t, "a revoked session", l.Session.ID, "")
	f.wantSession(t, "an unknown session", store.NewID(), "")
	short, err := f.be.Login(f.ctx, "login@accounts.test", Password, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour - time.Second)
	f.wantSession(t, "a session before its expiry", short.Session.ID, r.Member.ID)
	f.clock.Advance(time.Second)
	f.wantSession(t, "a session at its expiry", short.Session.ID, "")

	// A removed member's session ends with it, and its mail tokens are unknown.
	m, err := f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "leaving@accounts.test", Password: Password, Role: store.RoleDeveloper})
	if err != nil {
		t.Fatal(err)
	}
	ml, err := f.be.Login(f.ctx, "leaving@accounts.test", Password, sessionTTL)
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := f.be.IssueMailToken(f.ctx, "leaving@accounts.test", store.TokenResetPassword, resetTTL)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.RemoveMember(f.ctx, f.org.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	f.wantSession(t, "a removed member's session", ml.Session.ID, "")
	f.wantTokenState(t, "a removed member's token", tok, store.TokenResetPassword, store.TokenStateUnknown)
}

// testMailTokens: a token sent by mail is spent once and only before it
// expires, and its state says which.
func testMailTokens(t *testing.T, open Opener) {
	f := newFixture(t, open)
	t.Run("OKVerifyOnce", func(t *testing.T) {
		r := f.signup(t, "verify@accounts.test")
		f.wantTokenState(t, "a new token", r.VerifyToken, store.TokenVerifyEmail, store.TokenStateValid)
		f.wantTokenState(t, "a token of another purpose", r.VerifyToken, store.TokenResetPassword, store.TokenStateUnknown)
		l, err := f.be.VerifyEmail(f.ctx, r.VerifyToken, sessionTTL)
		if err != nil || l.Member.ID != r.Member.ID || !l.Member.EmailVerified {
			t.Fatalf("VerifyEmail = %+v, %v", l, err)
		}
		f.wantSession(t, "the verification's session", l.Session.ID, r.Member.ID)
		org, err := f.db.FindOrganization(f.ctx, r.Organization.ID)
		if err != nil || !org.EmailVerified {
			t.Fatalf("the owner's organization after verification = %+v, %v", org, err)
		}
		_, err = f.be.VerifyEmail(f.ctx, r.VerifyToken, sessionTTL)
		wantCode(t, "VerifyEmail(spent)", err, store.ECodeInvalidToken)
		f.wantTokenState(t, "a spent token", r.VerifyToken, store.TokenVerifyEmail, store.TokenStateUsed)
		_, _, err = f.be.IssueMailToken(f.ctx, "verify@accounts.test", store.TokenVerifyEmail, verifyTTL)
		wantCode(t, "IssueMailToken(verified address)", err, store.ECodeNotFound)
	})
	t.Run("ErrExpired", func(t *testing.T) {
		r := f.signup(t, "late@accounts.test")
		m, tok, err := f.be.IssueMailToken(f.ctx, "late@accounts.test", store.TokenVerifyEmail, time.Hour)
		if err != nil || m.ID != r.Member.ID || tok == "" || tok == r.VerifyToken {
			t.Fatalf("IssueMailToken = %+v, %q, %v", m, tok, err)
		}
		f.clock.Advance(time.Hour)
		f.wantTokenState(t, "a token at its expiry", tok, store.TokenVerifyEmail, store.TokenStateExpired)
		_, err = f.be.VerifyEmail(f.ctx, tok, sessionTTL)
		wantCode(t, "VerifyEmail(expired)", err, store.ECodeInvalidToken)
		if _, err := f.be.VerifyEmail(f.ctx, r.VerifyToken, sessionTTL); err != nil {
			t.Fatalf("VerifyEmail(the signup's token, still within its lifetime): %v", err)
		}
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		f.wantTokenState(t, "an unknown token", "no-such-token", store.TokenVerifyEmail, store.TokenStateUnknown)
		_, err := f.be.VerifyEmail(f.ctx, "no-such-token", sessionTTL)
		wantCode(t, "VerifyEmail(unknown)", err, store.ECodeInvalidToken)
		_, _, err = f.be.IssueMailToken(f.ctx, "nobody@accounts.test", store.TokenResetPassword, resetTTL)
		wantCode(t, "IssueMailToken(unknown address)", err, store.ECodeNotFound)
	})
}

// testPasswordReset: a reset spends its token, sets the password and ends
// every dashboard session of the account; a refused password spends nothing.
func testPasswordReset(t *testing.T, open Opener) {
	f := newFixture(t, open)
	r := f.signup(t, "reset@accounts.test")
	var sessions []string
	for range 2 {
		l, err := f.be.Login(f.ctx, "reset@accounts.test", Password, sessionTTL)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, l.Session.ID)
	}
	_, tok, err := f.be.IssueMailToken(f.ctx, "reset@accounts.test", store.TokenResetPassword, resetTTL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.be.ResetPassword(f.ctx, tok, "short")
	wantCode(t, "ResetPassword(weak)", err, store.ECodeValidation)
	f.wantTokenState(t, "the token after a refused password", tok, store.TokenResetPassword, store.TokenStateValid)
	f.wantSession(t, "a session after a refused reset", sessions[0], r.Member.ID)
	const fresh = "a brand new conformance password 7"
	m, err := f.be.ResetPassword(f.ctx, tok, fresh)
	if err != nil || m.ID != r.Member.ID {
		t.Fatalf("ResetPassword = %+v, %v", m, err)
	}
	for _, id := range sessions {
		f.wantSession(t, "a session after the reset", id, "")
	}
	_, err = f.be.Login(f.ctx, "reset@accounts.test", Password, sessionTTL)
	wantCode(t, "Login(old password)", err, store.ECodeInvalidCreds)
	if _, err := f.be.Login(f.ctx, "reset@accounts.test", fresh, sessionTTL); err != nil {
		t.Fatalf("Login(new password): %v", err)
	}
	_, err = f.be.ResetPassword(f.ctx, tok, "yet another conformance password 8")
	wantCode(t, "ResetPassword(spent)", err, store.ECodeInvalidToken)
	_, tok2, err := f.be.IssueMailToken(f.ctx, "reset@accounts.test", store.TokenResetPassword, resetTTL)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(resetTTL)
	_, err = f.be.ResetPassword(f.ctx, tok2, "yet another conformance password 8")
	wantCode(t, "ResetPassword(expired)", err, store.ECodeInvalidToken)
}

// testChallenges: an anti-bot challenge is spent once until it expires.
func testChallenges(t *testing.T, open Opener) {
	f := newFixture(t, open)
	until := f.clock.Now().Add(10 * time.Minute)
	for i, want := range []bool{true, false} {
		first, err := f.be.UseChallenge(f.ctx, "challenge-1", until)
		if err != nil || first != want {
			t.Fatalf("UseChallenge #%d = %v, %v; want %v", i+1, first, err, want)
		}
	}
	if first, err := f.be.UseChallenge(f.ctx, "challenge-2", until); err != nil || !first {
		t.Fatalf("UseChallenge(another) = %v, %v; want first", first, err)
	}
	f.clock.Advance(10 * time.Minute)
	if first, err := f.be.UseChallenge(f.ctx, "challenge-1", f.clock.Now().Add(time.Minute)); err != nil || !first {
		t.Fatalf("UseChallenge(after its expiry) = %v, %v; want first: an expired challenge is forgotten", first, err)
	}
}

// testPartners: partner sign-in attempts are single use until they expire;
// identities link to accounts only by an address the provider vouches for.
func testPartners(t *testing.T, open Opener) {
	f := newFixture(t, open)
	const issuer = "https://id.conformance.test"
	ident := func(sub, email string, verified bool) store.PartnerIdentity {
		return store.PartnerIdentity{Issuer: issuer, Subject: sub, Email: email, EmailVerified: verified}
	}
	t.Run("OKAttempts", func(t *testing.T) {
		if err := f.be.CreatePartnerAttempt(f.ctx, "state-1", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := f.be.SpendPartnerAttempt(f.ctx, "state-1"); err != nil {
			t.Fatalf("SpendPartnerAttempt: %v", err)
		}
		wantCode(t, "SpendPartnerAttempt(spent)", f.be.SpendPartnerAttempt(f.ctx, "state-1"), store.ECodeInvalidState)
		wantCode(t, "SpendPartnerAttempt(unknown)", f.be.SpendPartnerAttempt(f.ctx, "state-unknown"), store.ECodeInvalidState)
		if err := f.be.CreatePartnerAttempt(f.ctx, "state-2", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(10 * time.Minute)
		wantCode(t, "SpendPartnerAttempt(expired)", f.be.SpendPartnerAttempt(f.ctx, "state-2"), store.ECodeInvalidState)
	})
	t.Run("OKNewAccount", func(t *testing.T) {
		r, err := f.be.PartnerSignIn(f.ctx, ident("sub-new", "New@Partner.test", true), sessionTTL)
		if err != nil || !r.Created || !r.Linked || !r.Member.EmailVerified || r.Member.OrgID != "" || r.Session == nil {
			t.Fatalf("PartnerSignIn(new, verified) = %+v, %v", r, err)
		}
		f.wantSession(t, "the partner session", r.Session.ID, r.Member.ID)
		again, err := f.be.PartnerSignIn(f.ctx, ident("sub-new", "renamed@partner.test", true), sessionTTL)
		if err != nil || again.Created || again.Linked || again.Member.ID != r.Member.ID {
			t.Fatalf("PartnerSignIn(linked identity) = %+v, %v", again, err)
		}
		// An address the provider has not verified creates nothing
		// (docs/design.md §8: it could belong to anyone).
		_, err = f.be.PartnerSignIn(f.ctx, ident("sub-unverified", "unverified@partner.test", false), sessionTTL)
		wantCode(t, "PartnerSignIn(new, unverified)", err, store.ECodePartnerEmailUnverified)
		_, err = f.be.PartnerSignIn(f.ctx, ident("sub-unverified", "unverified@partner.test", true), sessionTTL)
		if err != nil {
			t.Fatalf("PartnerSignIn(verified, after an unverified refusal) = %v: the refusal left something behind", err)
		}
		t.Run("CompleteProfile", func(t *testing.T) {
			in := store.ProfileInput{FirstName: "Pat", LastName: "Ner", OrganizationName: "Partnered", Phone: "+5511987654321", TOSVersion: "2025-01"}
			bad := in
			bad.OrganizationName = " "
			_, err := f.be.CompleteProfile(f.ctx, r.Member.ID, bad)
			wantCode(t, "CompleteProfile(no organization name)", err, store.ECodeValidation)
			o, err := f.be.CompleteProfile(f.ctx, r.Member.ID, in)
			if err != nil || o.Name != "Partnered" {
				t.Fatalf("CompleteProfile = %+v, %v", o, err)
			}
			members, err := f.db.ListMembers(f.ctx, o.ID)
			if err != nil || len(members) != 1 || members[0].ID != r.Member.ID || members[0].Role != store.RoleOwner {
				t.Fatalf("members of the new organization = %+v, %v", members, err)
			}
			_, err = f.be.CompleteProfile(f.ctx, r.Member.ID, in)
			wantCode(t, "CompleteProfile(again)", err, store.ECodeConflict)
		})
	})
	t.Run("OKLinkExisting", func(t *testing.T) {
		owner := f.signup(t, "existing@partner.test")
		_, err := f.be.PartnerSignIn(f.ctx, ident("sub-claim", "existing@partner.test", false), sessionTTL)
		wantCode(t, "PartnerSignIn(registered address, unverified)", err, store.ECodePartnerEmailUnverified)
		r, err := f.be.PartnerSignIn(f.ctx, ident("sub-existing", "existing@partner.test", true), sessionTTL)
		if err != nil || !r.Linked || r.Created || r.Member.ID != owner.Member.ID {
			t.Fatalf("PartnerSignIn(registered address, verified) = %+v, %v; want the owner %s", r, err, owner.Member.ID)
		}
		_, err = f.be.CompleteProfile(f.ctx, owner.Member.ID, store.ProfileInput{FirstName: "A", LastName: "B", OrganizationName: "Second", Phone: "+5511987654321", TOSVersion: "2025-01"})
		wantCode(t, "CompleteProfile(an owner)", err, store.ECodeConflict)
	})
	t.Run("OKLinkDropsUnprovenPassword", func(t *testing.T) {
		// Account pre-hijacking: someone signs up with the owner's address
		// and a password of theirs, then the owner arrives through a
		// provider that vouches for the address. The link verifies the
		// account, so the password typed before anyone proved the address
		// stops opening it, and its sessions end.
		f.signup(t, "prehijack@partner.test")
		early, err := f.be.Login(f.ctx, "prehijack@partner.test", Password, sessionTTL)
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.be.PartnerSignIn(f.ctx, ident("sub-owner", "prehijack@partner.test", true), sessionTTL)
		if err != nil || !r.Linked || !r.Member.EmailVerified {
			t.Fatalf("PartnerSignIn(unverified account) = %+v, %v", r, err)
		}
		_, err = f.be.Login(f.ctx, "prehijack@partner.test", Password, sessionTTL)
		wantCode(t, "Login(password set before the address was proven)", err, store.ECodeInvalidCreds)
		f.wantSession(t, "a session opened with that password", early.Session.ID, "")
		f.wantSession(t, "the partner session", r.Session.ID, r.Member.ID)
		// The owner sets a password of their own through the mailbox.
		_, tok, err := f.be.IssueMailToken(f.ctx, "prehijack@partner.test", store.TokenResetPassword, resetTTL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.be.ResetPassword(f.ctx, tok, "the owner's own conformance password"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.be.Login(f.ctx, "prehijack@partner.test", "the owner's own conformance password", sessionTTL); err != nil {
			t.Fatalf("Login(the owner's password) = %v", err)
		}
		// A verified account keeps its password and sessions.
		v := f.signup(t, "proven@partner.test")
		if _, err := f.be.VerifyEmail(f.ctx, v.VerifyToken, sessionTTL); err != nil {
			t.Fatal(err)
		}
		kept, err := f.be.Login(f.ctx, "proven@partner.test", Password, sessionTTL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.be.PartnerSignIn(f.ctx, ident("sub-proven", "proven@partner.test", true), sessionTTL); err != nil {
			t.Fatal(err)
		}
		if _, err := f.be.Login(f.ctx, "proven@partner.test", Password, sessionTTL); err != nil {
			t.Fatalf("Login(verified account, after a link) = %v", err)
		}
		f.wantSession(t, "a verified account's session, after a link", kept.Session.ID, v.Member.ID)
	})
	t.Run("OKResetDropsLinksMadeWhileUnverified", func(t *testing.T) {
		// docs/design.md §8: a reset proves the address; a partner identity
		// linked before anyone had proved it may be a pre-hijacker's.
		f.signup(t, "hijacked@partner.test")
		r, err := f.be.PartnerSignIn(f.ctx, ident("sub-early", "hijacked@partner.test", true), sessionTTL)
		if err != nil || !r.Linked {
			t.Fatalf("PartnerSignIn(unverified account) = %+v, %v", r, err)
		}
		f.signup(t, "kept@partner.test")
		if _, err := f.be.PartnerSignIn(f.ctx, ident("sub-kept", "kept@partner.test", true), sessionTTL); err != nil {
			t.Fatal(err)
		}
		// The kept account is verified now (the partner said so); a second
		// identity linked from here on was linked to a verified account.
		if _, err := f.be.PartnerSignIn(f.ctx, ident("sub-late", "kept@partner.test", true), sessionTTL); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"hijacked@partner.test", "kept@partner.test"} {
			_, tok, err := f.be.IssueMailToken(f.ctx, email, store.TokenResetPassword, resetTTL)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.be.ResetPassword(f.ctx, tok, "a brand new conformance password 7"); err != nil {
				t.Fatal(err)
			}
		}
		// Sign-in with an identity the provider no longer vouches for
		// works only while it is linked.
		_, err = f.be.PartnerSignIn(f.ctx, ident("sub-early", "hijacked@partner.test", false), sessionTTL)
		wantCode(t, "PartnerSignIn(link dropped by the reset)", err, store.ECodePartnerEmailUnverified)
		if _, err := f.be.PartnerSignIn(f.ctx, ident("sub-late", "kept@partner.test", false), sessionTTL); err != nil {
			t.Fatalf("PartnerSignIn(link made while verified) after a reset: %v", err)
		}
	})
	t.Run("ErrPartnerFailed", func(t *testing.T) {
		_, err := f.be.PartnerSignIn(f.ctx, ident("sub-mute", "", true), sessionTTL)
		wantCode(t, "PartnerSignIn(no address)", err, store.ECodePartnerFailed)
		_, err = f.be.PartnerSignIn(f.ctx, ident("", "nosub@partner.test", true), sessionTTL)
		wantCode(t, "PartnerSignIn(no subject)", err, store.ECodePartnerFailed)
	})
}

// testOnboarding: each member's own tour progress, validated before it
// changes.
func testOnboarding(t *testing.T, open Opener) {
	f := newFixture(t, open)
	members, err := f.db.ListMembers(f.ctx, f.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	id := members[0].ID
	p, err := f.be.Onboarding(f.ctx, id)
	if err != nil || p.TourStatus != store.OnboardingNotStarted || len(p.CompletedSteps) != 0 {
		t.Fatalf("Onboarding(new member) = %+v, %v", p, err)
	}
	up, err := f.be.UpdateOnboarding(f.ctx, id, store.OnboardingUpdate{TourStatus: ptr(store.OnboardingCompleted), CompletedStep: ptr("welcome"),
		FeatureKey: ptr("licenses"), FeatureStatus: ptr(store.OnboardingInProgress)})
	if err != nil || up.TourStatus != store.OnboardingCompleted || up.CompletedAt == nil || !up.CompletedAt.Equal(f.clock.Now()) ||
		len(up.CompletedSteps) != 1 || up.FeatureProgress["licenses"] != store.OnboardingInProgress {
		t.Fatalf("UpdateOnboarding = %+v, %v", up, err)
	}
	_, err = f.be.UpdateOnboarding(f.ctx, id, store.OnboardingUpdate{CurrentStep: ptr(-1)})
	wantCode(t, "UpdateOnboarding(negative step)", err, store.ECodeValidation)
	got, err := f.be.Onboarding(f.ctx, id)
	if err != nil || got.TourStatus != store.OnboardingCompleted || got.CurrentStep != 0 {
		t.Fatalf("Onboarding after a refused update = %+v, %v", got, err)
	}
	_, err = f.be.Onboarding(f.ctx, store.NewID())
	wantCode(t, "Onboarding(unknown)", err, store.ECodeNotFound)
	_, err = f.be.UpdateOnboarding(f.ctx, store.NewID(), store.OnboardingUpdate{CurrentStep: ptr(1)})
	wantCode(t, "UpdateOnboarding(unknown)", err, store.ECodeNotFound)
}

// testAuthenticate: API keys and application secrets authenticate by their
// plaintext until they are revoked.
func testAuthenticate(t *testing.T, open Opener) {
	f := newFixture(t, open)
	k, plain, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.be.AuthenticateAPIKey(f.ctx, plain)
	if err != nil || got.ID != k.ID || got.OrgID != f.org.ID {
		t.Fatalf("AuthenticateAPIKey = %+v, %v", got, err)
	}
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(f.clock.Now()) {
		t.Fatalf("AuthenticateAPIKey: LastUsedAt = %v, want %v", got.LastUsedAt, f.clock.Now())
	}
	// The use is written at most once a minute.
	first := *got.LastUsedAt
	for _, c := range []struct {
		advance time.Duration
		want    func() time.Time
	}{
		{30 * time.Second, func() time.Time { return first }},
		{31 * time.Second, func() time.Time { return f.clock.Now() }},
	} {
		f.clock.Advance(c.advance)
		again, err := f.be.AuthenticateAPIKey(f.ctx, plain)
		if err != nil || again.LastUsedAt == nil || !again.LastUsedAt.Equal(c.want()) {
			t.Fatalf("AuthenticateAPIKey after %v more = %+v, %v; want LastUsedAt %v", c.advance, again, err, c.want())
		}
		keys, err := f.db.ListAPIKeys(f.ctx, f.org.ID)
		if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(c.want()) {
			t.Fatalf("ListAPIKeys after %v more = %+v, %v; want LastUsedAt %v stored", c.advance, keys, err, c.want())
		}
	}
	_, err = f.be.AuthenticateAPIKey(f.ctx, plain+"x")
	wantCode(t, "AuthenticateAPIKey(wrong)", err, store.ECodeUnauthenticated)
	if err := f.db.RevokeAPIKey(f.ctx, f.org.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.be.AuthenticateAPIKey(f.ctx, plain)
	wantCode(t, "AuthenticateAPIKey(revoked)", err, store.ECodeUnauthenticated)

	env := f.app.Env(store.EnvDevelopment)
	sec, splain, err := f.db.CreateAppSecret(f.ctx, f.ref(), store.CreateSecretInput{EnvironmentID: env.ID, Label: "backend"})
	if err != nil {
		t.Fatal(err)
	}
	gs, err := f.be.AuthenticateAppSecret(f.ctx, splain)
	if err != nil || gs.ID != sec.ID || gs.AppID != f.app.ID || gs.Env != store.EnvDevelopment {
		t.Fatalf("AuthenticateAppSecret = %+v, %v", gs, err)
	}
	_, err = f.be.AuthenticateAppSecret(f.ctx, plain) // an API key is no secret
	wantCode(t, "AuthenticateAppSecret(an API key)", err, store.ECodeUnauthenticated)
	if err := f.db.RevokeAppSecret(f.ctx, f.ref(), sec.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.be.AuthenticateAppSecret(f.ctx, splain)
	wantCode(t, "AuthenticateAppSecret(revoked)", err, store.ECodeUnauthenticated)
}

// testEndUserAccounts: end-users registered outside the runtime API, found
// across the organization's applications only.
func testEndUserAccounts(t *testing.T, open Opener) {
	f := newFixture(t, open)
	sc := f.scope(store.EnvProduction)
	u, err := f.be.RegisterEndUser(f.ctx, sc, "Imported@EndUsers.test", Password)
	if err != nil || u.Email != "imported@endusers.test" || u.Status != store.UserActive || u.EnvID != f.app.Env(store.EnvProduction).ID {
		t.Fatalf("RegisterEndUser = %+v, %v", u, err)
	}
	_, err = f.be.RegisterEndUser(f.ctx, sc, "imported@endusers.test", Password)
	wantCode(t, "RegisterEndUser(again)", err, store.ECodeEmailTaken)
	if _, err := f.be.RegisterEndUser(f.ctx, f.scope(store.EnvDevelopment), "imported@endusers.test", Password); err != nil {
		t.Fatalf("RegisterEndUser(same address in development): %v", err)
	}
	_, err = f.be.RegisterEndUser(f.ctx, sc, "not an address", Password)
	wantCode(t, "RegisterEndUser(bad address)", err, store.ECodeValidation)
	// Whoever opened the store, an end-user's password is held to the list
	// of common ones, and nothing is written for it.
	for _, pw := range []string{"password123", "short"} {
		_, err = f.be.RegisterEndUser(f.ctx, sc, "weak@endusers.test", pw)
		wantCode(t, "RegisterEndUser("+pw+")", err, store.ECodeValidation)
	}
	if _, err := f.be.RegisterEndUser(f.ctx, sc, "weak@endusers.test", Password); err != nil {
		t.Fatalf("RegisterEndUser(weak@ with a good password) after the refusals: %v", err)
	}
	_, err = f.be.RegisterEndUser(f.ctx, store.Scope{OrgID: f.org.ID, AppID: store.NewID(), Env: store.EnvProduction}, "x@endusers.test", Password)
	wantCode(t, "RegisterEndUser(unknown application)", err, store.ECodeNotFound)
	got, err := f.be.FindEndUser(f.ctx, f.org.ID, u.ID)
	if err != nil || got.ID != u.ID || got.Email != u.Email {
		t.Fatalf("FindEndUser = %+v, %v", got, err)
	}
	other, _ := seedOrg(t, f.db, f.ctx)
	_, err = f.be.FindEndUser(f.ctx, other.ID, u.ID)
	wantCode(t, "FindEndUser(another organization)", err, store.ECodeNotFound)
	_, err = f.be.FindEndUser(f.ctx, f.org.ID, store.NewID())
	wantCode(t, "FindEndUser(unknown)", err, store.ECodeNotFound)
}

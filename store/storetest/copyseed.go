package storetest

import (
	"context"
	"testing"
	"time"

	"licensectl/store"
)

// CopySeed is what SeedCopy made, with the plaintexts that only the caller
// ever sees: after a copy (docs/design.md §12, "Moving from the file") they
// must work on the target as they did on the source.
type CopySeed struct {
	Org         *store.Organization
	OwnerEmail  string
	App         *store.Application
	Plan        *store.Plan
	Webhook     *store.Webhook
	APIKey      string // the developer API key's plaintext
	AppSecret   string // the production secret's plaintext
	LicenseKeys []string
	// RefreshToken is a live session's refresh token, of the form
	// `<session id>.<secret>`; LegacyRefreshToken another live session's,
	// of the hash-only form of older releases.
	RefreshToken       string
	LegacyRefreshToken string
	SessionIDs         []string
	// VerifyToken is the owner's unspent verification mail token; Challenge
	// a spent anti-bot solution and PartnerState a pending partner sign-in's
	// state: each kept only under its hash.
	VerifyToken  string
	Challenge    string
	PartnerState string
}

// SeedCopy fills be, through its interfaces, with at least one record of
// nearly every kind a copy carries: an organization with its owner, a
// dashboard session, mail tokens, onboarding, a spent challenge and a
// partner attempt, an application with a secret, an entitlement, a plan,
// licenses, an end-user, two activations with live sessions (one holding
// a legacy refresh token), runtime usage, a meta secret, a webhook with
// pending deliveries and an outbox event not yet expanded, and the audit
// entries of all that. Runtime requests are stamped with clock.
func SeedCopy(t testing.TB, be store.Backend, fx Fixtures, clock *Clock) *CopySeed {
	t.Helper()
	ctx := store.WithActor(context.Background(), store.Actor{Type: store.ActorOperator, IP: "192.0.2.7", UserAgent: "copy-seed"})
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seed %s: %v", what, err)
		}
	}
	s := &CopySeed{OwnerEmail: "owner@copy.test", Challenge: "copy-challenge-solution", PartnerState: "copy-partner-state"}
	res, err := be.Signup(ctx, store.SignupInput{FirstName: "Ada", LastName: "Copy", OrganizationName: "Copy Co",
		Email: s.OwnerEmail, Password: Password, Phone: "+5511987654321", TOSVersion: "2025-01", VerifyTTL: time.Hour})
	must("signup", err)
	s.Org, s.VerifyToken = res.Organization, res.VerifyToken
	_, err = be.Login(ctx, s.OwnerEmail, Password, time.Hour)
	must("dashboard login", err)
	_, _, err = be.IssueMailToken(ctx, s.OwnerEmail, store.TokenResetPassword, time.Hour)
	must("mail token", err)
	tour := "in_progress"
	_, err = be.UpdateOnboarding(ctx, res.Member.ID, store.OnboardingUpdate{TourStatus: &tour})
	must("onboarding", err)
	_, err = be.UseChallenge(ctx, s.Challenge, clock.Now().Add(10*time.Minute))
	must("challenge", err)
	must("partner attempt", be.CreatePartnerAttempt(ctx, s.PartnerState, 10*time.Minute))
	_, err = be.MetaSecret("copy_seed_key", func() ([]byte, error) { return []byte("copy seed secret"), nil })
	must("meta secret", err)

	_, s.APIKey, err = be.CreateAPIKey(ctx, s.Org.ID, "copy key")
	must("API key", err)
	s.App, err = be.CreateApplication(ctx, store.CreateApplicationInput{OrgID: s.Org.ID, Name: "Copy App", Slug: "copy-app"})
	must("application", err)
	ref := store.AppRef{OrgID: s.Org.ID, AppID: s.App.ID}
	sc := store.Scope{OrgID: s.Org.ID, AppID: s.App.ID, Env: store.EnvProduction}
	prod := s.App.Env(store.EnvProduction)
	_, s.AppSecret, err = be.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: prod.ID, Label: "copy secret"})
	must("application secret", err)
	s.Webhook, err = be.CreateWebhook(ctx, ref, "https://hooks.copy.test/in", []string{store.EventAll})
	must("webhook", err)
	ent, err := be.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: "pro", Name: "Pro"})
	must("entitlement", err)
	name, maxDevices := "Copy plan", 3
	s.Plan, err = be.CreatePlan(ctx, ref, store.PlanInput{Name: &name, MaxDevices: &maxDevices, EntitlementIDs: &[]string{ent.ID}})
	must("plan", err)
	items, err := be.GenerateLicenses(ctx, sc, store.GenerateLicensesInput{PlanID: s.Plan.ID, Quantity: 2})
	must("licenses", err)
	for _, it := range items {
		s.LicenseKeys = append(s.LicenseKeys, it.Key)
	}
	_, err = be.RegisterEndUser(ctx, sc, "user@copy.test", Password)
	must("end-user", err)

	rt := be.OpenRuntime(runtimeOptions())
	client := store.RuntimeClient{AppID: s.App.ID}
	for i, fp := range []string{"copy-pc-1", "copy-pc-2"} {
		a, err := rt.Activate(ctx, client, store.ActivateInput{LicenseKey: s.LicenseKeys[0], Fingerprint: fp,
			Replay: store.Replay{Timestamp: clock.Now(), Nonce: "copy-seed-nonce-" + fp}})
		must("activation", err)
		s.SessionIDs = append(s.SessionIDs, a.SessionID)
		if i == 0 {
			s.RefreshToken = a.RefreshToken
		}
	}
	s.LegacyRefreshToken, err = fx.SeedLegacyRefreshToken(ctx, s.SessionIDs[1])
	must("legacy refresh token", err)
	must("runtime usage", rt.AddRuntimeRequests(ctx, clock.Now(), map[string]int64{s.Org.ID: 42}))

	// The activations' events become pending deliveries; the entitlement
	// made after stays an event not yet expanded.
	_, err = be.ExpandEvents(ctx, 100)
	must("expand events", err)
	_, err = be.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: "extra", Name: "Extra"})
	must("second entitlement", err)
	return s
}

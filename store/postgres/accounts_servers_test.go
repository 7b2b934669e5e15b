package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/postgres/pgtest"
)

// accountsServers opens two stores on one database, as two servers behind a
// balancer would (docs/design.md §12).
func accountsServers(t *testing.T) [2]*DB {
	t.Helper()
	u := pgtest.URL(t)
	var out [2]*DB
	for i := range out {
		db, err := Open(context.Background(), Options{URL: u, Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out[i] = db
	}
	return out
}

// accountsRace runs f(i) for i in [0, n) at once, f(i) on server i%2, and returns
// the errors in order.
func accountsRace(dbs [2]*DB, n int, f func(db *DB, i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = f(dbs[i%2], i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// accountsWins counts the nil errors and fails on any error whose code is not
// loser's.
func accountsWins(t *testing.T, what string, errs []error, loser string) int {
	t.Helper()
	n := 0
	for _, err := range errs {
		switch {
		case err == nil:
			n++
		case store.ErrorCode(err) != loser:
			t.Fatalf("%s: error %v, want none or %s", what, err, loser)
		}
	}
	return n
}

const accountsServersPassword = "a long enough password for two servers 1"

// TestAccountsServersLastOwner: two owners removed at once on two servers, each
// removal passing the last-owner rule on its own; the database lets one
// through and refuses the other, round after round.
func TestAccountsServersLastOwner(t *testing.T) {
	dbs := accountsServers(t)
	ctx := context.Background()
	for round := range 3 {
		o, err := dbs[0].CreateOrganization(ctx, store.CreateOrganizationInput{Name: fmt.Sprintf("Owners %d", round),
			OwnerEmail: fmt.Sprintf("first%d@servers.test", round), OwnerPassword: accountsServersPassword})
		if err != nil {
			t.Fatal(err)
		}
		second, err := dbs[1].AddMember(ctx, store.AddMemberInput{OrgID: o.ID, Email: fmt.Sprintf("second%d@servers.test", round),
			Password: accountsServersPassword, Role: store.RoleOwner})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := dbs[0].ListMembers(ctx, o.ID)
		if err != nil || len(ms) != 2 || ms[0].Role != store.RoleOwner || ms[1].ID != second.ID {
			t.Fatalf("ListMembers = %+v, %v", ms, err)
		}
		// Hold both removals after their check, before their commit: a
		// third session takes the onboarding table, which a removal
		// writes after deciding. Each removal has then read the owners
		// before the other's commit, unless the database made one wait.
		hold, err := dbs[0].pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hold.Exec(ctx, `LOCK TABLE onboarding IN SHARE MODE`); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(300 * time.Millisecond)
			hold.Rollback(ctx)
		}()
		errs := accountsRace(dbs, 2, func(db *DB, i int) error { return db.RemoveMember(ctx, o.ID, ms[i].ID) })
		if n := accountsWins(t, "RemoveMember(one of two owners)", errs, store.ECodeLastOwner); n != 1 {
			t.Fatalf("round %d: %d of two concurrent removals of the two owners went through (%v); want 1", round, n, errs)
		}
		left, err := dbs[1].ListMembers(ctx, o.ID)
		if err != nil || len(left) != 1 || left[0].Role != store.RoleOwner {
			t.Fatalf("round %d: members left = %+v, %v; want one owner", round, left, err)
		}
	}
}

// TestAccountsServersSpentOnce: a mail token, a password-reset token, an anti-bot
// solution and a partner attempt presented at once on two servers are
// each spent by exactly one request; the first sign-ins of one partner
// identity and signups of one address make one account.
func TestAccountsServersSpentOnce(t *testing.T) {
	dbs := accountsServers(t)
	ctx := context.Background()
	const n = 10
	t.Run("VerifyEmail", func(t *testing.T) {
		r, err := dbs[0].Signup(ctx, store.SignupInput{FirstName: "A", LastName: "B", OrganizationName: "Verified once",
			Email: "verify@servers.test", Password: accountsServersPassword, Phone: "+5511987654321", TOSVersion: "2025-01", VerifyTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		errs := accountsRace(dbs, n, func(db *DB, _ int) error {
			_, err := db.VerifyEmail(ctx, r.VerifyToken, time.Hour)
			return err
		})
		if got := accountsWins(t, "VerifyEmail", errs, store.ECodeInvalidToken); got != 1 {
			t.Fatalf("%d of %d concurrent VerifyEmail with one token succeeded; want 1", got, n)
		}
		if st, err := dbs[1].MailTokenState(ctx, r.VerifyToken, store.TokenVerifyEmail); err != nil || st != store.TokenStateUsed {
			t.Fatalf("MailTokenState = %q, %v; want used", st, err)
		}
	})
	t.Run("ResetPassword", func(t *testing.T) {
		if _, err := dbs[0].CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Reset once", OwnerEmail: "reset@servers.test",
			OwnerPassword: accountsServersPassword}); err != nil {
			t.Fatal(err)
		}
		_, tok, err := dbs[1].IssueMailToken(ctx, "reset@servers.test", store.TokenResetPassword, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		errs := accountsRace(dbs, n, func(db *DB, i int) error {
			_, err := db.ResetPassword(ctx, tok, fmt.Sprintf("new password number %d for the reset", i))
			return err
		})
		if got := accountsWins(t, "ResetPassword", errs, store.ECodeInvalidToken); got != 1 {
			t.Fatalf("%d of %d concurrent ResetPassword with one token succeeded; want 1", got, n)
		}
		// The winner's password is the one in force, on either server.
		for i, err := range errs {
			_, lerr := dbs[(i+1)%2].Login(ctx, "reset@servers.test", fmt.Sprintf("new password number %d for the reset", i), time.Hour)
			if (err == nil) != (lerr == nil) {
				t.Fatalf("reset %d answered %v, but a login with its password answered %v", i, err, lerr)
			}
		}
	})
	t.Run("UseChallenge", func(t *testing.T) {
		until := time.Now().Add(10 * time.Minute)
		firsts := make([]bool, n)
		errs := accountsRace(dbs, n, func(db *DB, i int) (err error) {
			firsts[i], err = db.UseChallenge(ctx, "one solution", until)
			return err
		})
		accountsWins(t, "UseChallenge", errs, "")
		got := 0
		for _, f := range firsts {
			if f {
				got++
			}
		}
		if got != 1 {
			t.Fatalf("%d of %d concurrent uses of one anti-bot solution were first; want 1", got, n)
		}
	})
	t.Run("SpendPartnerAttempt", func(t *testing.T) {
		if err := dbs[0].CreatePartnerAttempt(ctx, "one state", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		errs := accountsRace(dbs, n, func(db *DB, _ int) error { return db.SpendPartnerAttempt(ctx, "one state") })
		if got := accountsWins(t, "SpendPartnerAttempt", errs, store.ECodeInvalidState); got != 1 {
			t.Fatalf("%d of %d concurrent spends of one partner attempt succeeded; want 1", got, n)
		}
	})
	t.Run("PartnerSignIn", func(t *testing.T) {
		id := store.PartnerIdentity{Issuer: "https://id.servers.test", Subject: "sub-1", Email: "partner@servers.test", EmailVerified: true}
		res := make([]*store.PartnerSignInResult, n)
		errs := accountsRace(dbs, n, func(db *DB, i int) (err error) {
			res[i], err = db.PartnerSignIn(ctx, id, time.Hour)
			return err
		})
		accountsWins(t, "PartnerSignIn", errs, "")
		created, linked := 0, 0
		for _, r := range res {
			if r.Member.ID != res[0].Member.ID {
				t.Fatalf("concurrent first sign-ins of one identity made accounts %s and %s", r.Member.ID, res[0].Member.ID)
			}
			if r.Created {
				created++
			}
			if r.Linked {
				linked++
			}
		}
		if created != 1 || linked != 1 {
			t.Fatalf("of %d concurrent first sign-ins, %d created an account and %d linked the identity; want 1 and 1", n, created, linked)
		}
	})
	t.Run("Signup", func(t *testing.T) {
		res := make([]*store.SignupResult, n)
		errs := accountsRace(dbs, n, func(db *DB, i int) (err error) {
			res[i], err = db.Signup(ctx, store.SignupInput{FirstName: "A", LastName: "B", OrganizationName: "Signed up once",
				Email: "signup@servers.test", Password: accountsServersPassword, Phone: "+5511987654321", TOSVersion: "2025-01", VerifyTTL: time.Hour})
			return err
		})
		accountsWins(t, "Signup", errs, "")
		fresh := 0
		for _, r := range res {
			if !r.Existing {
				fresh++
			}
		}
		orgs, err := dbs[0].ListOrganizations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		made := 0
		for _, o := range orgs {
			if o.Name == "Signed up once" {
				made++
			}
		}
		if fresh != 1 || made != 1 {
			t.Fatalf("%d concurrent signups of one address: %d answered new, %d organizations made; want 1 and 1", n, fresh, made)
		}
	})
	t.Run("CreateOrganization", func(t *testing.T) {
		// One name on two servers at once: each organization gets a slug of
		// its own, none fails.
		slugs := make([]string, n)
		errs := accountsRace(dbs, n, func(db *DB, i int) error {
			o, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Twin Servers"})
			if err == nil {
				slugs[i] = o.Slug
			}
			return err
		})
		accountsWins(t, "CreateOrganization", errs, "")
		seen := map[string]bool{}
		for _, s := range slugs {
			seen[s] = true
		}
		for i := 1; i <= n; i++ {
			want := "twin-servers"
			if i > 1 {
				want = fmt.Sprintf("%s-%d", want, i)
			}
			if !seen[want] {
				t.Fatalf("slugs of %d concurrent organizations named alike = %v; want twin-servers to twin-servers-%d", n, slugs, n)
			}
		}
	})
	t.Run("CompleteProfile", func(t *testing.T) {
		r, err := dbs[0].PartnerSignIn(ctx, store.PartnerIdentity{Issuer: "https://id.servers.test", Subject: "sub-profile",
			Email: "profile@servers.test", EmailVerified: true}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		errs := accountsRace(dbs, n, func(db *DB, i int) error {
			_, err := db.CompleteProfile(ctx, r.Member.ID, store.ProfileInput{FirstName: "P", LastName: "R",
				OrganizationName: fmt.Sprintf("Profile %d", i), Phone: "+5511987654321", TOSVersion: "2025-01"})
			return err
		})
		if got := accountsWins(t, "CompleteProfile", errs, store.ECodeConflict); got != 1 {
			t.Fatalf("%d of %d concurrent profile completions of one account succeeded; want 1", got, n)
		}
	})
}

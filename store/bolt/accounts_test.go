package bolt

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"

	"licensectl/store"
	"licensectl/store/password"
)

const testPassword = "correct horse battery staple 42"

// acctClock is a settable clock.
type acctClock struct{ ns atomic.Int64 }

func (c *acctClock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *acctClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// mustAccountsDB opens a store in a temporary file with cheap hashing.
func mustAccountsDB(tb testing.TB) (*DB, *acctClock) {
	tb.Helper()
	clock := &acctClock{}
	clock.ns.Store(time.Now().UTC().Truncate(time.Microsecond).UnixNano())
	h := password.NewHasher(password.Options{Params: &argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}})
	db, err := Open(filepath.Join(tb.TempDir(), "test.db"), Options{Policies: store.Policies{Clock: clock.now, Hasher: h, Passwords: password.CheckPolicy}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, clock
}

// orgAuditEvents lists the organization's audit events, oldest first.
func orgAuditEvents(tb testing.TB, db *DB, orgID string) []string {
	tb.Helper()
	var out []string
	err := db.view(context.Background(), func(t *txn) error {
		ids := t.all(bAuditOrg, idb(orgID))
		for i := len(ids) - 1; i >= 0; i-- {
			e := new(store.AuditEntry)
			if err := t.mustGet(bAudit, ids[i], "audit", e); err != nil {
				return err
			}
			out = append(out, e.Event)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func mustSignup(tb testing.TB, db *DB, email string) *store.SignupResult {
	tb.Helper()
	res, err := db.Signup(context.Background(), store.SignupInput{FirstName: "Ada", LastName: "Lovelace", OrganizationName: "Engines",
		Email: email, Password: testPassword, Phone: "+5511912345678", TOSVersion: "1", VerifyTTL: 24 * time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func TestSignupVerifyLogin(t *testing.T) {
	db, clock := mustAccountsDB(t)
	ctx := context.Background()
	res := mustSignup(t, db, "Ada@Example.com")
	if res.Existing || res.VerifyToken == "" || res.Member.Email != "ada@example.com" || res.Member.EmailVerified || res.Organization.EmailVerified {
		t.Fatalf("signup = %+v", res)
	}
	again := mustSignup(t, db, "ada@example.com")
	if !again.Existing || again.Member.ID != res.Member.ID || again.Organization != nil || again.VerifyToken != "" {
		t.Fatalf("second signup = %+v", again)
	}

	v, err := db.VerifyEmail(ctx, res.VerifyToken, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Member.EmailVerified || v.Session.MemberID != res.Member.ID {
		t.Fatalf("verify = %+v", v)
	}
	o, _ := db.FindOrganization(ctx, res.Organization.ID)
	if !o.EmailVerified {
		t.Fatal("organization not verified")
	}
	if _, err := db.VerifyEmail(ctx, res.VerifyToken, time.Hour); store.ErrorCode(err) != store.ECodeInvalidToken {
		t.Fatalf("second verify err = %v, want invalid_token", err)
	}

	l, err := db.Login(ctx, " ADA@example.com ", testPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DashboardSession(ctx, l.Session.ID); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Hour)
	if _, err := db.DashboardSession(ctx, l.Session.ID); store.ErrorCode(err) != store.ECodeUnauthenticated {
		t.Fatalf("expired session err = %v, want unauthenticated", err)
	}
	// A new login sweeps the member's expired sessions.
	if _, err := db.Login(ctx, "ada@example.com", testPassword, time.Hour); err != nil {
		t.Fatal(err)
	}
	_ = db.view(ctx, func(tx *txn) error {
		if n := tx.count(bDashSessMem, idb(res.Member.ID)); n != 1 {
			t.Errorf("%d sessions kept, want 1", n)
		}
		return nil
	})

	for _, c := range []struct{ email, pw string }{{"ada@example.com", "wrong password here"}, {"nobody@example.com", testPassword}} {
		if _, err := db.Login(ctx, c.email, c.pw, time.Hour); store.ErrorCode(err) != store.ECodeInvalidCreds {
			t.Fatalf("login %s err = %v, want invalid_credentials", c.email, err)
		}
	}
	want := []string{"organization.created", "member.email_verified", "member.login", "member.login", "member.login_failed"}
	if got := orgAuditEvents(t, db, res.Organization.ID); len(got) != len(want) {
		t.Fatalf("audit = %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("audit = %v, want %v", got, want)
			}
		}
	}
}

func TestResetPasswordEndsSessions(t *testing.T) {
	db, clock := mustAccountsDB(t)
	ctx := context.Background()
	res := mustSignup(t, db, "grace@example.com")
	s1, err := db.Login(ctx, "grace@example.com", testPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := db.IssueMailToken(ctx, "grace@example.com", store.TokenResetPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ResetPassword(ctx, tok, "short"); store.ErrorCode(err) != store.ECodeValidation {
		t.Fatalf("weak err = %v", err)
	}
	m, err := db.ResetPassword(ctx, tok, "an entirely new passphrase 9")
	if err != nil {
		t.Fatal(err)
	}
	if !m.EmailVerified {
		t.Fatal("reset did not verify the address")
	}
	if _, err := db.DashboardSession(ctx, s1.Session.ID); store.ErrorCode(err) != store.ECodeUnauthenticated {
		t.Fatalf("session after reset err = %v", err)
	}
	if _, err := db.ResetPassword(ctx, tok, "yet another new passphrase 10"); store.ErrorCode(err) != store.ECodeInvalidToken {
		t.Fatalf("reused token err = %v", err)
	}
	// Expired tokens are swept when the next one is issued.
	_, _, err = db.IssueMailToken(ctx, "grace@example.com", store.TokenResetPassword, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(25 * time.Hour)
	if _, _, err := db.IssueMailToken(ctx, "grace@example.com", store.TokenResetPassword, time.Hour); err != nil {
		t.Fatal(err)
	}
	_ = db.view(ctx, func(tx *txn) error {
		if n := tx.tx.Bucket(bMailTokens).Stats().KeyN; n != 1 {
			t.Errorf("%d mail tokens kept, want 1", n)
		}
		return nil
	})
	if _, _, err := db.IssueMailToken(ctx, "grace@example.com", store.TokenVerifyEmail, time.Hour); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("verify token for a verified address err = %v, want not_found", err)
	}
	if _, _, err := db.IssueMailToken(ctx, "nobody@example.com", store.TokenResetPassword, time.Hour); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("unknown address err = %v, want not_found", err)
	}
	_ = res
}

func TestMembersStore(t *testing.T) {
	db, _ := mustAccountsDB(t)
	ctx := context.Background()
	o, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Acme", OwnerEmail: "boss@acme.example", OwnerPassword: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := db.ListMembers(ctx, o.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("members = %v, %v", ms, err)
	}
	boss := ms[0]
	if err := db.RemoveMember(ctx, o.ID, boss.ID); store.ErrorCode(err) != store.ECodeLastOwner {
		t.Fatalf("remove last owner err = %v", err)
	}

	// Two owners removing each other at once: exactly one succeeds.
	second, err := db.AddMember(ctx, store.AddMemberInput{OrgID: o.ID, Email: "second@acme.example", Password: testPassword, Role: store.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, id := range []string{boss.ID, second.ID} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.RemoveMember(ctx, o.ID, id)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("errs = %v, want exactly one last_owner", errs)
	}
	ms, _ = db.ListMembers(ctx, o.ID)
	if len(ms) != 1 || ms[0].Role != store.RoleOwner {
		t.Fatalf("members = %+v", ms)
	}

	other, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.FindMember(ctx, other.ID, ms[0].ID); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("cross-organization find err = %v", err)
	}
	if _, err := db.AddMember(ctx, store.AddMemberInput{OrgID: other.ID, Email: ms[0].Email, Password: testPassword, Role: store.RoleViewer}); store.ErrorCode(err) != store.ECodeEmailTaken {
		t.Fatalf("taken err = %v", err)
	}
	if _, err := db.AddMember(ctx, store.AddMemberInput{OrgID: "0190c0de-0000-7000-8000-000000000000", Email: "x@acme.example", Password: testPassword, Role: store.RoleViewer}); store.ErrorCode(err) != store.ECodeNotFound {
		t.Fatalf("unknown org err = %v", err)
	}
	got := orgAuditEvents(t, db, o.ID)
	if len(got) != 3 || got[0] != "organization.created" || got[1] != "member.added" || got[2] != "member.removed" {
		t.Fatalf("audit = %v", got)
	}
}

func TestUseChallenge(t *testing.T) {
	db, clock := mustAccountsDB(t)
	ctx := context.Background()
	exp := clock.now().Add(10 * time.Minute)
	for i, want := range []bool{true, false} {
		first, err := db.UseChallenge(ctx, "sig-a", exp)
		if err != nil || first != want {
			t.Fatalf("use %d = %v, %v; want %v", i, first, err, want)
		}
	}
	clock.advance(11 * time.Minute)
	// Expired keys are swept; the expired challenge itself is refused by its
	// own expiry before it gets here.
	if first, err := db.UseChallenge(ctx, "sig-b", clock.now().Add(10*time.Minute)); err != nil || !first {
		t.Fatalf("use b = %v, %v", first, err)
	}
	_ = db.view(ctx, func(tx *txn) error {
		if n := tx.tx.Bucket(bChallenges).Stats().KeyN; n != 1 {
			t.Errorf("%d challenges kept, want 1", n)
		}
		return nil
	})
}

package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"
	bbolt "go.etcd.io/bbolt"

	"licensectl/store"
	"licensectl/store/password"
	"licensectl/store/storedoc"
)

// memberAudit lists "event method" of the audit entries about a member,
// oldest first.
func memberAudit(tb testing.TB, db *DB, memberID string) []string {
	tb.Helper()
	var out []string
	err := db.view(context.Background(), func(t *txn) error {
		c := t.tx.Bucket(bAudit).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var e store.AuditEntry
			if err := decode(bAudit, k, v, &e); err != nil {
				return err
			}
			if e.Target.ID == memberID {
				out = append(out, fmt.Sprintf("%s %v", e.Event, e.Metadata["method"]))
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// memberByEmail returns the account of email, or nil.
func memberByEmail(tb testing.TB, db *DB, email string) *store.Member {
	tb.Helper()
	var m *store.Member
	err := db.view(context.Background(), func(t *txn) error {
		id := t.lookup(bMembersEmail, []byte(email))
		if id == "" {
			return nil
		}
		m = new(store.Member)
		return t.mustGet(bMembers, id, "member", m)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// identityLink returns the stored link of an identity, or nil.
func identityLink(tb testing.TB, db *DB, issuer, subject string) *storedoc.PartnerIdentity {
	tb.Helper()
	var rec *storedoc.PartnerIdentity
	err := db.view(context.Background(), func(t *txn) error {
		r := new(storedoc.PartnerIdentity)
		ok, err := t.getAt(bPartnerIdentities, identityKey(issuer, subject), r)
		if ok {
			rec = r
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

func TestPartnerAttempts(t *testing.T) {
	db, clock := mustAccountsDB(t)
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		if err := db.CreatePartnerAttempt(ctx, "state-1", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := db.SpendPartnerAttempt(ctx, "state-1"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrInvalidState", func(t *testing.T) {
		if err := db.CreatePartnerAttempt(ctx, "state-2", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, state string
			advance     time.Duration
		}{{"spent", "state-1", 0}, {"unknown", "state-x", 0}, {"empty", "", 0}, {"expired", "state-2", 10 * time.Minute}} {
			clock.advance(tc.advance)
			if code := store.ErrorCode(db.SpendPartnerAttempt(ctx, tc.state)); code != store.ECodeInvalidState {
				t.Errorf("%s: code %q, want invalid_state", tc.name, code)
			}
		}
	})
	t.Run("OKStoredHashed", func(t *testing.T) {
		if err := db.CreatePartnerAttempt(ctx, "plain-state", time.Minute); err != nil {
			t.Fatal(err)
		}
		db.view(ctx, func(t2 *txn) error {
			if t2.tx.Bucket(bPartnerAttempts).Get([]byte("plain-state")) != nil {
				t.Error("the state is stored in plain")
			}
			return nil
		})
	})
}

func TestPartnerSignInAudit(t *testing.T) {
	db, _ := mustAccountsDB(t)
	ctx := context.Background()
	iss := "https://id.example.com"

	t.Run("OKNewAccount", func(t *testing.T) {
		res, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "a", Email: "New@Example.com", EmailVerified: true}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Created || !res.Linked || !res.Member.EmailVerified || res.Member.OrgID != "" || res.Member.Email != "new@example.com" {
			t.Fatalf("result = %+v, member %+v", res, res.Member)
		}
		again, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "a", Email: "changed@example.com"}, time.Hour)
		if err != nil || again.Member.ID != res.Member.ID || again.Linked {
			t.Fatalf("second sign-in = %+v, %v", again, err)
		}
		got := memberAudit(t, db, res.Member.ID)
		want := []string{"member.partner_linked <nil>", "member.login partner", "member.login partner"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("audit = %v, want %v", got, want)
		}
		// Same subject at another issuer is another identity.
		other, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: "https://other.example.com", Subject: "a", Email: "third@example.com", EmailVerified: true}, time.Hour)
		if err != nil || other.Member.ID == res.Member.ID {
			t.Fatalf("other issuer = %+v, %v", other, err)
		}
	})

	t.Run("OKLinkExisting", func(t *testing.T) {
		su := mustSignup(t, db, "owner@example.com")
		res, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "b", Email: "owner@example.com", EmailVerified: true}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if res.Member.ID != su.Member.ID || res.Created || !res.Member.EmailVerified {
			t.Fatalf("linked = %+v", res.Member)
		}
		events := orgAuditEvents(t, db, su.Organization.ID)
		if n := len(events); n < 2 || events[n-2] != "member.partner_linked" || events[n-1] != "member.login" {
			t.Fatalf("organization audit = %v", events)
		}
	})

	t.Run("ErrPartnerEmailUnverified", func(t *testing.T) {
		su := mustSignup(t, db, "taken@example.com")
		for _, email := range []string{"taken@example.com", "nobody@example.com"} {
			_, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "c-" + email, Email: email}, time.Hour)
			if code := store.ErrorCode(err); code != store.ECodePartnerEmailUnverified {
				t.Fatalf("%s: code %q, want partner_email_unverified", email, code)
			}
			if l := identityLink(t, db, iss, "c-"+email); l != nil {
				t.Fatalf("%s: the identity was linked: %+v", email, l)
			}
		}
		if m := memberByEmail(t, db, "nobody@example.com"); m != nil {
			t.Fatalf("an account was created: %+v", m)
		}
		if m := memberByEmail(t, db, "taken@example.com"); m == nil || m.ID != su.Member.ID || m.EmailVerified {
			t.Fatalf("existing account = %+v", m)
		}
	})

	t.Run("ErrPartnerFailed", func(t *testing.T) {
		_, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "d"}, time.Hour)
		if code := store.ErrorCode(err); code != store.ECodePartnerFailed {
			t.Fatalf("code %q, want partner_failed", code)
		}
	})
}

// resetPassword resets the password of email through a reset token.
func resetPassword(tb testing.TB, db *DB, email string) {
	tb.Helper()
	ctx := context.Background()
	_, tok, err := db.IssueMailToken(ctx, email, store.TokenResetPassword, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.ResetPassword(ctx, tok, "an entirely new passphrase 9"); err != nil {
		tb.Fatal(err)
	}
}

// memberLinks lists the identity keys the by-member index holds for a
// member.
func memberLinks(tb testing.TB, db *DB, memberID string) []string {
	tb.Helper()
	var out []string
	err := db.view(context.Background(), func(t *txn) error {
		prefix := idb(memberID)
		c := t.tx.Bucket(bPartnerIdentitiesMember).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			out = append(out, string(k[len(prefix):]))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestResetPasswordDropsUnverifiedLinks: a reset takes away the partner
// identities linked while the account's address was unverified, and only
// those.
func TestResetPasswordDropsUnverifiedLinks(t *testing.T) {
	db, _ := mustAccountsDB(t)
	ctx := context.Background()
	iss := "https://id.example.com"
	signIn := func(sub, email string) *store.PartnerSignInResult {
		t.Helper()
		res, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: sub, Email: email, EmailVerified: true}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	su := mustSignup(t, db, "pre@example.com")
	if signIn("early", "pre@example.com").Member.ID != su.Member.ID {
		t.Fatal("the identity was not linked to the account of its address")
	}
	if l := identityLink(t, db, iss, "early"); l == nil || l.AccountVerified {
		t.Fatalf("link made while unverified = %+v", l)
	}
	signIn("late", "pre@example.com") // the first link verified the account
	if l := identityLink(t, db, iss, "late"); l == nil || !l.AccountVerified {
		t.Fatalf("link made once verified = %+v", l)
	}
	created := signIn("own", "own@example.com").Member
	if l := identityLink(t, db, iss, "own"); l == nil || !l.AccountVerified {
		t.Fatalf("link of a new account = %+v", l)
	}

	resetPassword(t, db, "pre@example.com")
	if l := identityLink(t, db, iss, "early"); l != nil {
		t.Fatalf("the link made while unverified survived the reset: %+v", l)
	}
	if l := identityLink(t, db, iss, "late"); l == nil {
		t.Fatal("the reset dropped a link made while verified")
	}
	if got, want := memberLinks(t, db, su.Member.ID), []string{string(identityKey(iss, "late"))}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("by-member index = %q, want %q", got, want)
	}
	resetPassword(t, db, "own@example.com")
	if l := identityLink(t, db, iss, "own"); l == nil || l.MemberID != created.ID {
		t.Fatalf("the reset dropped the link of an account made by partner sign-in: %+v", l)
	}
	events := orgAuditEvents(t, db, su.Organization.ID)
	if events[len(events)-1] != store.EventMemberPasswordReset {
		t.Fatalf("organization audit = %v", events)
	}
}

// TestMigratePartnerLinks opens a version-4 file holding a link written
// before links recorded whether the account was verified: the migration
// indexes it by account, and a reset drops it.
func TestMigratePartnerLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	iss := "https://id.example.com"
	res, err := db.PartnerSignIn(context.Background(), store.PartnerIdentity{Issuer: iss, Subject: "old", Email: "old@example.com", EmailVerified: true}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// Back to version 4: the link as that version wrote it, no index.
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		old, _ := json.Marshal(map[string]any{"m": res.Member.ID, "at": time.Now().UTC()})
		if err := tx.Bucket(bPartnerIdentities).Put(identityKey(iss, "old"), old); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bPartnerIdentitiesMember); err != nil {
			return err
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(4))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	h := password.NewHasher(password.Options{Params: &argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}})
	db, err = Open(path, Options{Policies: store.Policies{Hasher: h, Passwords: password.CheckPolicy}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Migrated(); len(got) == 0 || got[0] != "5 partner identities by account" {
		t.Fatalf("Migrated() = %q", got)
	}
	if got := memberLinks(t, db, res.Member.ID); len(got) != 1 || got[0] != string(identityKey(iss, "old")) {
		t.Fatalf("by-member index after the migration = %q", got)
	}
	if l := identityLink(t, db, iss, "old"); l == nil || l.AccountVerified {
		t.Fatalf("old link reads as %+v, want AccountVerified false", l)
	}
	resetPassword(t, db, "old@example.com")
	if l := identityLink(t, db, iss, "old"); l != nil || len(memberLinks(t, db, res.Member.ID)) != 0 {
		t.Fatalf("the old link survived the reset: %+v", l)
	}
}

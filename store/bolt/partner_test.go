package bolt

import (
	"context"
	"fmt"
	"testing"
	"time"

	"licensectl/store"
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
		res, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "a", Email: "New@Example.com", EmailVerified: true}, time.Hour, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Created || !res.Linked || res.VerifyToken != "" || res.Member.OrgID != "" || res.Member.Email != "new@example.com" {
			t.Fatalf("result = %+v, member %+v", res, res.Member)
		}
		again, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "a", Email: "changed@example.com"}, time.Hour, time.Hour)
		if err != nil || again.Member.ID != res.Member.ID || again.Linked {
			t.Fatalf("second sign-in = %+v, %v", again, err)
		}
		got := memberAudit(t, db, res.Member.ID)
		want := []string{"member.partner_linked <nil>", "member.login partner", "member.login partner"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("audit = %v, want %v", got, want)
		}
		// Same subject at another issuer is another identity.
		other, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: "https://other.example.com", Subject: "a", Email: "third@example.com", EmailVerified: true}, time.Hour, time.Hour)
		if err != nil || other.Member.ID == res.Member.ID {
			t.Fatalf("other issuer = %+v, %v", other, err)
		}
	})

	t.Run("OKLinkExisting", func(t *testing.T) {
		su := mustSignup(t, db, "owner@example.com")
		res, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "b", Email: "owner@example.com", EmailVerified: true}, time.Hour, time.Hour)
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

	t.Run("ErrEmailTaken", func(t *testing.T) {
		mustSignup(t, db, "taken@example.com")
		_, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "c", Email: "taken@example.com"}, time.Hour, time.Hour)
		if code := store.ErrorCode(err); code != store.ECodeEmailTaken {
			t.Fatalf("code %q, want email_taken", code)
		}
	})

	t.Run("ErrPartnerFailed", func(t *testing.T) {
		_, err := db.PartnerSignIn(ctx, store.PartnerIdentity{Issuer: iss, Subject: "d"}, time.Hour, time.Hour)
		if code := store.ErrorCode(err); code != store.ECodePartnerFailed {
			t.Fatalf("code %q, want partner_failed", code)
		}
	})
}

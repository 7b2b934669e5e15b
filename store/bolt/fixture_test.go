package bolt

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// dump is a whole database as reviewable text: every bucket's keys in hex
// and values as JSON when they are JSON, hex otherwise.
type dump struct {
	Schema  uint64                `json:"schema_version"`
	Buckets map[string][]dumpPair `json:"buckets"`
}

type dumpPair struct {
	K    string          `json:"k"`
	JSON json.RawMessage `json:"json,omitempty"`
	Hex  string          `json:"hex,omitempty"`
}

// value is the exact bytes of the pair's value.
func (p dumpPair) value() ([]byte, error) {
	if p.JSON != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, p.JSON); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return hex.DecodeString(p.Hex)
}

// dumpFile reads every bucket of the file at path.
func dumpFile(tb testing.TB, path string) *dump {
	tb.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer bdb.Close()
	d := &dump{Buckets: map[string][]dumpPair{}}
	err = bdb.View(func(tx *bolt.Tx) error {
		d.Schema = 0
		if b := tx.Bucket(bMeta).Get(metaSchemaVersion); len(b) == 8 {
			d.Schema = uint64(b[7])
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			pairs := []dumpPair{}
			err := b.ForEach(func(k, v []byte) error {
				p := dumpPair{K: hex.EncodeToString(k)}
				if len(v) > 0 && (v[0] == '{' || v[0] == '[') && json.Valid(v) {
					p.JSON = append(json.RawMessage(nil), v...)
				} else {
					p.Hex = hex.EncodeToString(v)
				}
				pairs = append(pairs, p)
				return nil
			})
			d.Buckets[string(name)] = pairs
			return err
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// writeDump creates a bbolt file at path holding exactly the pairs of d, put
// raw: no code of this package encodes them.
func writeDump(tb testing.TB, path string, d *dump) {
	tb.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		for name, pairs := range d.Buckets {
			b, err := tx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			for _, p := range pairs {
				k, err := hex.DecodeString(p.K)
				if err != nil {
					return err
				}
				v, err := p.value()
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, p.K, err)
				}
				if err := b.Put(k, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// populate fills db through the store with at least one record of every
// kind the file holds. It returns the scope of the application.
func populate(tb testing.TB, db *DB, clock *testClock) store.Scope {
	tb.Helper()
	ctx := store.WithActor(context.Background(), store.Actor{Type: "member", ID: store.NewID(), IP: "192.0.2.7", UserAgent: "fixture/1"})
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	su, err := db.Signup(ctx, store.SignupInput{FirstName: "Ana", LastName: "Lima", OrganizationName: "Acme <Tools> & Co", Email: "ana@example.com",
		Password: "correct horse", Phone: "+55 11 5555-0100", TOSVersion: "2026-01", VerifyTTL: time.Hour})
	must(err)
	clock.advance(time.Second)
	_, err = db.VerifyEmail(ctx, su.VerifyToken, 24*time.Hour)
	must(err)
	_, _, err = db.IssueMailToken(ctx, "ana@example.com", store.TokenResetPassword, time.Hour)
	must(err)
	org := su.Organization
	_, err = db.AddMember(ctx, store.AddMemberInput{OrgID: org.ID, Email: "bo@example.com", Password: "pw pw pw pw", Role: store.RoleDeveloper, FirstName: "Bo", LastName: "Ng"})
	must(err)
	_, err = db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Other", OwnerEmail: "owner@other.example", OwnerPassword: "secret secret"})
	must(err)
	clock.advance(time.Second)
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Desk App"})
	must(err)
	s := store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}
	_, err = db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Archived"})
	must(err)
	k, _, err := db.CreateAPIKey(ctx, org.ID, "ci")
	must(err)
	_, plainKey, err := db.CreateAPIKey(ctx, org.ID, "deploy")
	must(err)
	must(db.RevokeAPIKey(ctx, org.ID, k.ID))
	clock.advance(2 * time.Hour)
	_, err = db.AuthenticateAPIKey(ctx, plainKey)
	must(err)
	prod := app.Env(store.EnvProduction)
	_, plainSecret, err := db.CreateAppSecret(ctx, s.App(), store.CreateSecretInput{EnvironmentID: prod.ID, Label: "backend"})
	must(err)
	_, err = db.AuthenticateAppSecret(ctx, plainSecret)
	must(err)
	desc := "Export to PDF"
	pro, err := db.CreateEntitlement(ctx, s.App(), store.CreateEntitlementInput{Key: "pro", Name: "Pro", Description: &desc})
	must(err)
	pdf, err := db.CreateEntitlement(ctx, s.App(), store.CreateEntitlementInput{Key: "pdf", Name: "PDF"})
	must(err)
	name, trial, days, maxDev, resets, ext := "Pro yearly", false, 365, 3, 2, "prod_123"
	daysP, extP := &days, &ext
	plan, err := db.CreatePlan(ctx, s.App(), store.PlanInput{Name: &name, IsTrial: &trial, DurationDays: &daysP, MaxDevices: &maxDev, DeviceResetLimit: &resets,
		ExternalProductID: &extP, Policies: json.RawMessage(`{"offline_days":7,"note":"a<b"}`), PoliciesSet: true, EntitlementIDs: &[]string{pro.ID}})
	must(err)
	trialName, isTrial := "Trial", true
	trialPlan, err := db.CreatePlan(ctx, s.App(), store.PlanInput{Name: &trialName, IsTrial: &isTrial})
	must(err)
	exp := clock.now().Add(30 * 24 * time.Hour)
	lics, err := db.GenerateLicenses(ctx, s, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 4, ExpiresAt: &exp, EntitlementIDs: []string{pdf.ID}})
	must(err)
	_, err = db.GenerateLicenses(ctx, s, store.GenerateLicensesInput{PlanID: trialPlan.ID, Quantity: 2})
	must(err)
	u, err := db.RegisterEndUser(ctx, s, "user@example.com", "user password")
	must(err)
	_, err = db.AddEndUserRole(ctx, org.ID, u.ID, "beta")
	must(err)
	u2, err := db.RegisterEndUser(ctx, s, "blocked@example.com", "user password")
	must(err)
	_, err = db.SetEndUserStatus(ctx, s, u2.ID, store.UserDisabled)
	must(err)
	clock.advance(time.Minute)
	d1, err := db.EnsureDevice(ctx, s, "fp-0001")
	must(err)
	d2, err := db.EnsureDevice(ctx, s, "fp-0002")
	must(err)
	_, err = db.SeedBinding(ctx, s, lics[0].ID, d1.ID, u.ID)
	must(err)
	clock.advance(time.Minute)
	_, err = db.SeedBinding(ctx, s, lics[0].ID, d2.ID, "")
	must(err)
	_, err = db.SeedBinding(ctx, s, lics[1].ID, d2.ID, "")
	must(err)
	_, err = db.SetLicenseStatus(ctx, s, lics[2].ID, store.LicenseSuspended)
	must(err)
	_, err = db.SetLicenseStatus(ctx, s, lics[3].ID, store.LicenseRevoked)
	must(err)
	_, err = db.SetDeviceStatus(ctx, s, d2.ID, store.DeviceBlocked)
	must(err)
	ok, err := db.UseChallenge(ctx, "challenge-1", clock.now().Add(time.Hour))
	must(err)
	if !ok {
		tb.Fatal("challenge refused")
	}
	rt := db.Runtime(RuntimeOptions{})
	must(rt.AddRuntimeRequests(ctx, clock.now(), map[string]int64{org.ID: 42}))
	_, err = db.MetaSecret("fixture", func() ([]byte, error) { return []byte("0123456789abcdef"), nil })
	must(err)
	return s
}

// TestWriteV1Fixture wrote testdata/v1.json with the code of schema version
// 1; it only runs when asked to, to regenerate nothing by accident.
func TestWriteV1Fixture(t *testing.T) {
	if os.Getenv("LICENSECTL_WRITE_V1") == "" {
		t.Skip("set LICENSECTL_WRITE_V1=1 to rewrite testdata/v1.json")
	}
	clock := &testClock{}
	clock.ns.Store(time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC).UnixNano())
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := Open(path, Options{Clock: clock.now, Hasher: fakeHasher{}})
	if err != nil {
		t.Fatal(err)
	}
	populate(t, db, clock)
	db.Close()
	d := dumpFile(t, path)
	out, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/v1.json", append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// The text must give back the file's records byte for byte.
	again := filepath.Join(t.TempDir(), "again.db")
	writeDump(t, again, d)
	if a, b := dumpFile(t, again), d; fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("dump does not round-trip")
	}
}

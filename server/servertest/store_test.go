package servertest_test

import (
	"os"
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/postgres/pgtest"
)

// TestOpenStoreByEnv: $LICENSECTL_TEST_STORE picks the store of every test
// server; bolt when unset, and a name no opener has is an error naming the
// known ones, never a silent fallback.
func TestOpenStoreByEnv(t *testing.T) {
	t.Setenv(servertest.StoreEnv, "nosuch")
	if _, err := servertest.OpenStore(t.TempDir(), servertest.StoreOptions{}); err == nil || !strings.Contains(err.Error(), "known: bolt") {
		t.Fatalf("OpenStore(nosuch) = %v; want an error naming bolt", err)
	}
	for _, name := range []string{"", "bolt"} {
		t.Setenv(servertest.StoreEnv, name)
		dir := t.TempDir()
		db, err := servertest.OpenStore(dir, servertest.StoreOptions{Billing: store.BillingPolicy{Tiers: []store.Tier{{Key: "free", MaxApplications: 0}}, Enforce: true}})
		if err != nil {
			t.Fatalf("OpenStore(%q): %v", name, err)
		}
		org, err := db.CreateOrganization(t.Context(), store.CreateOrganizationInput{Name: "Opened"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.CreateApplication(t.Context(), store.CreateApplicationInput{OrgID: org.ID, Name: "Capped"})
		if store.ErrorCode(err) != store.ECodePlanLimit {
			t.Fatalf("CreateApplication under the policy given at open = %v; want plan_limit_reached", err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := servertest.OpenStore(dir, servertest.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if orgs, err := again.ListOrganizations(t.Context()); err != nil || len(orgs) != 1 {
			t.Fatalf("reopened store lists %d organizations, %v; want the one created", len(orgs), err)
		}
		again.Close()
	}
}

// TestOpenPostgresByDir: the postgres opener gives each data directory a
// database of its own and finds it again when a server restarts on that
// directory.
func TestOpenPostgresByDir(t *testing.T) {
	if err := pgtest.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required under CI=true: %v", err)
		}
		t.Skipf("SKIP: no PostgreSQL for the tests (%v); install Debian's postgresql package or set %s", err, pgtest.URLEnv)
	}
	t.Setenv(servertest.StoreEnv, "postgres")
	dir, other := t.TempDir(), t.TempDir()
	secret := func(dir, value string) string {
		t.Helper()
		db, err := servertest.OpenStore(dir, servertest.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		v, err := db.MetaSecret("opener", func() ([]byte, error) { return []byte(value), nil })
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	if got := secret(dir, "first"); got != "first" {
		t.Fatalf("a new database holds %q", got)
	}
	if got := secret(dir, "second"); got != "first" {
		t.Fatalf("reopened on the same directory, the store holds %q; want the first database's %q", got, "first")
	}
	if got := secret(other, "other"); got != "other" {
		t.Fatalf("another directory's store holds %q; want a database of its own", got)
	}
}

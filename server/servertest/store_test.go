package servertest_test

import (
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
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

package main

import (
	"context"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/password"
)

// Text as releases before the input rules (design.md §8) stored it: an
// OSC sequence that retitles the terminal and a CSI that clears the screen,
// and a right-to-left override followed by a colour change.
const (
	legacyFingerprint = "legacy-fp\x1b]0;owned\x07\x1b[2J"
	legacyAppName     = "Studio \u202eevil\x1b[31m"
)

// cmdLegacy writes old records into the data file of $LICENSECTL_DATA_DIR
// through store/bolt, skipping the input rules the API now applies: a
// device with legacyFingerprint and application APP_SLUG renamed to
// legacyAppName. It sets $DEVICE to the device id.
//
//	legacy APP_SLUG
func cmdLegacy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: legacy APP_SLUG")
	}
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(ts.Getenv("LICENSECTL_DATA_DIR"), "licensectl.db"),
		bolt.Options{Hasher: password.NewHasher(password.Options{Params: &servertest.CheapHash})})
	ts.Check(err)
	defer db.Close()
	orgs, err := db.ListOrganizations(ctx)
	ts.Check(err)
	for _, o := range orgs {
		apps, err := db.ListApplications(ctx, o.ID)
		ts.Check(err)
		for _, a := range apps {
			if a.Slug != args[0] {
				continue
			}
			d, err := db.SeedLegacyDevice(ctx, store.Scope{OrgID: o.ID, AppID: a.ID, Env: store.EnvProduction}, legacyFingerprint)
			ts.Check(err)
			ts.Check(db.SeedLegacyApplicationName(ctx, store.AppRef{OrgID: o.ID, AppID: a.ID}, legacyAppName))
			ts.Setenv("DEVICE", d.ID)
			return
		}
	}
	ts.Fatalf("legacy: no application %q", args[0])
}

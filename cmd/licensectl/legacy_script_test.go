package main

import (
	"context"

	"github.com/rogpeppe/go-internal/testscript"
)

// Text as releases before the input rules (docs/design.md §8) stored it: an
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
	db, sc := openScope(ts, "legacy", args[0])
	defer db.Close()
	d, err := db.SeedLegacyDevice(ctx, sc, legacyFingerprint)
	ts.Check(err)
	ts.Check(db.SeedLegacyApplicationName(ctx, sc.App(), legacyAppName))
	ts.Setenv("DEVICE", d.ID)
}

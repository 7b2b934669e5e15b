package main

import (
	"context"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/password"
)

// cmdHolder seeds what only the runtime API creates: an end-user EMAIL who
// holds the newest license of application APP_SLUG on a device FINGERPRINT,
// in the data file of $LICENSECTL_DATA_DIR (no CLI process may hold it).
// It sets $KEY to the license key and $LICENSE to its id.
//
//	holder APP_SLUG EMAIL FINGERPRINT
func cmdHolder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: holder APP_SLUG EMAIL FINGERPRINT")
	}
	ctx := context.Background()
	db, sc := openScope(ts, "holder", args[0])
	defer db.Close()
	page, err := db.ListLicenses(ctx, sc, store.LicenseFilter{PageRequest: store.PageRequest{PerPage: 1}})
	ts.Check(err)
	if len(page.Data) == 0 {
		ts.Fatalf("holder: application %q has no license", args[0])
	}
	u, err := db.RegisterEndUser(ctx, sc, args[1], "a fine password 1")
	ts.Check(err)
	d, err := db.EnsureDevice(ctx, sc, args[2])
	ts.Check(err)
	_, err = db.SeedBinding(ctx, sc, page.Data[0].ID, d.ID, u.ID)
	ts.Check(err)
	ts.Setenv("KEY", page.Data[0].Key)
	ts.Setenv("LICENSE", page.Data[0].ID)
}

// openScope opens the store the script's licensectl uses (the file of
// $LICENSECTL_DATA_DIR, or the database of $LICENSECTL_STORAGE_POSTGRES_URL)
// and finds the production scope of the application with slug; cmd names
// the caller in the failure.
func openScope(ts *testscript.TestScript, cmd, slug string) (servertest.Store, store.Scope) {
	ctx := context.Background()
	opts := servertest.StoreOptions{Hasher: password.NewHasher(password.Options{Params: &servertest.CheapHash})}
	var (
		db  servertest.Store
		err error
	)
	if ts.Getenv("LICENSECTL_STORAGE_DRIVER") == "postgres" {
		db, err = servertest.OpenPostgresURL(ts.Getenv("LICENSECTL_STORAGE_POSTGRES_URL"), opts)
	} else {
		db, err = servertest.OpenBolt(ts.Getenv("LICENSECTL_DATA_DIR"), opts)
	}
	ts.Check(err)
	orgs, err := db.ListOrganizations(ctx)
	ts.Check(err)
	for _, o := range orgs {
		apps, err := db.ListApplications(ctx, o.ID)
		ts.Check(err)
		for _, a := range apps {
			if a.Slug == slug {
				return db, store.Scope{OrgID: o.ID, AppID: a.ID, Env: store.EnvProduction}
			}
		}
	}
	db.Close()
	ts.Fatalf("%s: no application %q", cmd, slug)
	return nil, store.Scope{}
}

// cmdSeat seeds a floating seat, which only the runtime API checks out: it
// activates license KEY of application APP_SLUG on a device FINGERPRINT and
// takes a lease, setting $LEASE to the lease's id.
//
//	seat APP_SLUG KEY FINGERPRINT
func cmdSeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: seat APP_SLUG KEY FINGERPRINT")
	}
	ctx := context.Background()
	db, sc := openScope(ts, "seat", args[0])
	defer db.Close()
	rt := db.OpenRuntime(store.RuntimeOptions{
		Signer: func(env *store.Environment, c store.AccessClaims) (string, error) {
			return "seat." + c.SessionID, nil
		},
		SessionOf: func(tok string) string { return strings.TrimPrefix(tok, "seat.") },
		Issuer:    "seat",
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: time.Hour,
		ReplayWindow: time.Minute, RefreshReuseGrace: time.Second,
	})
	rc := store.RuntimeClient{AppID: sc.AppID, Env: sc.Env}
	replay := func() store.Replay {
		return store.Replay{Timestamp: time.Now(), Nonce: "seat-nonce-" + store.NewID()}
	}
	a, err := rt.Activate(ctx, rc, store.ActivateInput{LicenseKey: args[1], Fingerprint: args[2], Replay: replay()})
	ts.Check(err)
	g, err := rt.CheckoutLease(ctx, rc, a.AccessToken, replay())
	ts.Check(err)
	ts.Setenv("LEASE", g.ID)
}

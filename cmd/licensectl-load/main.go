// Command licensectl-load seeds a licensectl data directory and drives load
// against a running server, for scripts/bench.
//
//	licensectl-load seed -data-dir DIR -licenses 10000 -out seed.json   (server stopped)
//	licensectl-load run -url http://127.0.0.1:8080 -seed seed.json -conns 64 -duration 10s
//	licensectl-load run ... -endpoints overload -overload-conns 1000 -server-pid PID
//	licensectl-load run ... -endpoints overload-one -overload-conns 1024 -server-pid PID
//
// The run mode first opens one session per seeded license through the API,
// registers one end-user per connection, then measures each endpoint in turn
// over keep-alive connections and prints a table. Its HTTP client is a plain
// HTTP/1.1 writer and reader on raw connections, so that the generator,
// which shares the machine's cores with the server, costs as little as
// possible.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/postgres"
)

// seedFile is what seed writes and run reads.
type seedFile struct {
	AppID     string   `json:"app_id"`
	PublicKey string   `json:"public_key"`
	Licenses  []string `json:"licenses"`
	// The one-license growth case (activate-one) activates GrowthKey, a
	// license of its own, and reads its detail with APIKey.
	GrowthKey string `json:"growth_key"`
	GrowthID  string `json:"growth_id"`
	APIKey    string `json:"api_key"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: licensectl-load seed|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seedCmd(os.Args[2:])
	case "run":
		err = runCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "licensectl-load:", err)
		os.Exit(1)
	}
}

// seedCmd writes an organization, an application, a plan with entitlements
// and the licenses straight into the data directory's file.
func seedCmd(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	dataDir := fs.String("data-dir", "", "licensectl data directory (server stopped)")
	pgURL := fs.String("postgres-url", "", "seed this PostgreSQL database instead of the data directory's file")
	n := fs.Int("licenses", 10000, "licenses to generate")
	out := fs.String("out", "seed.json", "where to write the seed description")
	_ = fs.Parse(args)
	ctx := context.Background()
	db, err := openSeedStore(ctx, *dataDir, *pgURL)
	if err != nil {
		return err
	}
	defer db.Close()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Bench Org"})
	if err != nil {
		return err
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Bench App"})
	if err != nil {
		return err
	}
	ref := store.AppRef{OrgID: org.ID, AppID: app.ID}
	var ents []string
	for _, k := range []string{"pro", "export", "cloud-sync"} {
		e, err := db.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: k, Name: k})
		if err != nil {
			return err
		}
		ents = append(ents, e.ID)
	}
	// Room for every device the activation benchmark creates.
	name, maxDevices, resets := "Bench", 1_000_000, 3
	plan, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: &name, MaxDevices: &maxDevices, DeviceResetLimit: &resets, EntitlementIDs: &ents})
	if err != nil {
		return err
	}
	sf := seedFile{AppID: app.ID, PublicKey: app.Env(store.EnvProduction).PublicKey}
	scope := store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}
	for done := 0; done < *n; {
		batch := min(store.MaxGenerate, *n-done)
		ls, err := db.GenerateLicenses(ctx, scope, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: batch})
		if err != nil {
			return err
		}
		for _, l := range ls {
			sf.Licenses = append(sf.Licenses, l.Key)
		}
		done += batch
	}
	growth, err := db.GenerateLicenses(ctx, scope, store.GenerateLicensesInput{PlanID: plan.ID})
	if err != nil {
		return err
	}
	sf.GrowthKey, sf.GrowthID = growth[0].Key, growth[0].ID
	if _, sf.APIKey, err = db.CreateAPIKey(ctx, org.ID, "bench"); err != nil {
		return err
	}
	raw, err := json.Marshal(sf)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, raw, 0o600)
}

// seedStore is what seeding writes through: the admin interface of either
// store.
type seedStore interface {
	store.Admin
	Close() error
}

// openSeedStore opens the PostgreSQL database of pgURL, or else the data
// directory's file.
func openSeedStore(ctx context.Context, dataDir, pgURL string) (seedStore, error) {
	if pgURL != "" {
		return postgres.Open(ctx, postgres.Options{URL: pgURL})
	}
	if dataDir == "" {
		return nil, fmt.Errorf("-data-dir or -postgres-url is required")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	return bolt.Open(dataDir+"/licensectl.db", bolt.Options{})
}

// runCmd prepares sessions and users through the API and runs every
// benchmark.
func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8080", "server base address; several, comma-separated, spread the connections over them")
	seedPath := fs.String("seed", "seed.json", "seed description written by seed")
	conns := fs.Int("conns", 64, "concurrent keep-alive connections")
	dur := fs.Duration("duration", 10*time.Second, "time per endpoint")
	only := fs.String("endpoints", "healthz,validate,entitlements/check,refresh,activate,login", "comma-separated endpoints to run, in order")
	var over overloadOptions
	fs.IntVar(&over.activators, "overload-conns", 1000, "overload: connections activating at once")
	fs.IntVar(&over.validators, "overload-validators", 8, "overload: connections validating meanwhile")
	fs.IntVar(&over.serverPID, "server-pid", 0, "overload: the server's process id, for its peak RSS")
	fs.IntVar(&over.addrs, "overload-addrs", 0, "overload: send each request from one of this many X-Forwarded-For addresses (the server must trust loopback)")
	fs.DurationVar(&over.queueWait, "max-queue-wait", 2*time.Second, "overload: the server's server.max_queue_wait, for the report")
	_ = fs.Parse(args)
	raw, err := os.ReadFile(*seedPath)
	if err != nil {
		return err
	}
	var sf seedFile
	if err := json.Unmarshal(raw, &sf); err != nil {
		return err
	}
	b, err := newBench(*url, sf, *conns, *dur)
	if err != nil {
		return err
	}
	b.over = over
	return b.runAll(splitList(*only))
}

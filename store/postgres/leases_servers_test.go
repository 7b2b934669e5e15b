package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"licensectl/store"
)

// leaseServers opens two DBs on one database, as two servers behind a
// balancer would, and seeds an application with a plan of seats floating
// seats and a license of it bound to devices devices, each with a live
// session whose access token is "seat-token-<i>".
func leaseServers(t *testing.T, seats, devices int) (dbs [2]*DB, sc store.Scope, licenseID string) {
	t.Helper()
	return licenseServers(t, store.Plan{Name: "Floating", MaxDevices: devices, MaxConcurrent: seats, LeaseSeconds: 60}, devices)
}

// licenseServers is leaseServers with the plan given and bound devices
// with sessions.
func licenseServers(t *testing.T, plan store.Plan, devices int) (dbs [2]*DB, sc store.Scope, licenseID string) {
	t.Helper()
	ctx := context.Background()
	// The file's content is the store's; its signature is package offline's.
	sign := func(mf *store.MachineFile, _ bool) (*store.IssuedMachineFile, error) {
		return &store.IssuedMachineFile{IssuedAt: mf.IssuedAt, ExpiresAt: mf.ExpiresAt, TTL: mf.TTL, DeviceID: mf.Device.ID}, nil
	}
	dbs = twoServers(t, Options{Policies: store.Policies{MachineFiles: sign}})
	now := time.Now().UTC()
	org, app := store.NewID(), store.NewID()
	a := &store.Application{ID: app, OrgID: org, Name: "Seats", Slug: "seats", Status: store.AppActive, CreatedAt: now, UpdatedAt: now,
		Environments: []store.Environment{{ID: store.NewID(), Name: store.EnvProduction, PublicKey: "pk_seats_" + app, CreatedAt: now}}}
	plan.ID, plan.AppID, plan.CreatedAt, plan.UpdatedAt = store.NewID(), app, now, now
	err := dbs[0].update(ctx, func(tx *txn) error {
		if _, err := tx.exec(`INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, '{}')`, org, "seats-"+org); err != nil {
			return err
		}
		if err := tx.saveApp(a, true); err != nil {
			return err
		}
		return tx.savePlan(&plan, true)
	})
	if err != nil {
		t.Fatal(err)
	}
	sc = store.Scope{OrgID: org, AppID: app, Env: store.EnvProduction}
	gen, err := dbs[0].GenerateLicenses(ctx, sc, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range devices {
		d, err := dbs[i%2].EnsureDevice(ctx, sc, fmt.Sprintf("seat-pc-%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		sid, err := dbs[i%2].SeedBinding(ctx, sc, gen[0].ID, d.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		// The seeded session's token is known to nobody; this test is its
		// client, so it gives the session one it knows.
		if err := dbs[0].update(ctx, func(tx *txn) error {
			_, err := tx.exec(`UPDATE sessions SET access_hash = $2 WHERE id = $1`, sid, store.HashSecret(fmt.Sprintf("seat-token-%d", i)))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	return dbs, sc, gen[0].ID
}

// TestFloatingSeatsAcrossServers: N parallel checkouts of distinct devices
// spread over two servers on one database, on a license of K seats, give
// exactly K seats; the others are refused as seats_exhausted
// (docs/design.md §12, §13). A store that counted seats per server, or
// counted without the license's row lock, would grant more.
func TestFloatingSeatsAcrossServers(t *testing.T) {
	const seats, devices, rounds = 3, 16, 3
	for round := range rounds {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			dbs, sc, licID := leaseServers(t, seats, devices)
			ctx := context.Background()
			var rts [2]store.RuntimeBackend
			for i, db := range dbs {
				rts[i] = db.OpenRuntime(store.RuntimeOptions{ReplayWindow: time.Minute})
			}
			codes := make([]string, devices)
			grants := make([]*store.LeaseGrant, devices)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range devices {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					rp := store.Replay{Timestamp: time.Now().UTC(), Nonce: fmt.Sprintf("seat-nonce-%04d-%s", i, store.NewID())}
					g, err := rts[i%2].CheckoutLease(ctx, store.RuntimeClient{AppID: sc.AppID}, fmt.Sprintf("seat-token-%d", i), rp)
					codes[i], grants[i] = store.ErrorCode(err), g
					if err != nil && store.AsError(err) == nil {
						codes[i] = err.Error()
					}
				}()
			}
			close(start)
			wg.Wait()
			granted := 0
			for i, code := range codes {
				switch code {
				case "":
					granted++
					if g := grants[i]; g.SeatsInUse < 1 || g.SeatsInUse > seats || g.MaxConcurrent != seats {
						t.Errorf("grant %d = %+v", i, g)
					}
				case store.ECodeSeatsExhausted:
				default:
					t.Errorf("checkout %d: %s", i, code)
				}
			}
			if granted != seats {
				t.Fatalf("%d seats granted over two servers, want exactly %d (%q)", granted, seats, codes)
			}
			for i, db := range dbs {
				list, err := db.ListLeases(ctx, sc, licID)
				if err != nil || len(list) != seats {
					t.Fatalf("ListLeases on server %d = %d leases, %v; want %d", i, len(list), err, seats)
				}
			}
		})
	}
}

// TestDeviceLimitAcrossServers: machine files issued in parallel for N new
// devices over two servers on one database, on a license of K devices,
// bind exactly K; the others are refused as device_limit_reached, and the
// license's count and index agree (docs/design.md §12).
func TestDeviceLimitAcrossServers(t *testing.T) {
	const limit, tries = 3, 12
	dbs, sc, licID := licenseServers(t, store.Plan{Name: "Air-gapped", MaxDevices: limit, MaxOfflineDays: 10}, 0)
	ctx := context.Background()
	codes := make([]string, tries)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := dbs[i%2].IssueMachineFile(ctx, sc, licID, store.LicenseMachineFileInput{Fingerprint: fmt.Sprintf("air-pc-%02d", i)})
			codes[i] = store.ErrorCode(err)
			if err != nil && store.AsError(err) == nil {
				codes[i] = err.Error()
			}
		}()
	}
	close(start)
	wg.Wait()
	bound := 0
	for i, code := range codes {
		switch code {
		case "":
			bound++
		case store.ECodeDeviceLimit:
		default:
			t.Errorf("machine file %d: %s", i, code)
		}
	}
	if bound != limit {
		t.Fatalf("%d devices bound over two servers, want exactly %d (%q)", bound, limit, codes)
	}
	for i, db := range dbs {
		d, err := db.FindLicense(ctx, sc, licID)
		if err != nil || d.DevicesCount != limit || len(d.Devices) != limit || d.Status != store.LicenseActive {
			t.Fatalf("FindLicense on server %d = %+v, %v; want %d devices", i, d, err, limit)
		}
	}
}

package bolt

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// readV1 reads testdata/v1.json.gz, records written by the code of schema
// version 1 through the store. It is gzipped (8 KB for 63 KB of indented
// JSON; zcat shows it): nothing rewrites it, and every clone carries it.
func readV1(t *testing.T) *dump {
	t.Helper()
	f, err := os.Open("testdata/v1.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	d := new(dump)
	if err := json.NewDecoder(zr).Decode(d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != 1 {
		t.Fatalf("fixture schema version %d", d.Schema)
	}
	return d
}

// loadV1 writes the version-1 fixture into a new file byte for byte.
func loadV1(t *testing.T) (string, *dump) {
	t.Helper()
	d := readV1(t)
	path := filepath.Join(t.TempDir(), "v1.db")
	writeDump(t, path, d)
	return path, d
}

// migrationsAfter is what Migrated reports for a file of version v.
func migrationsAfter(v uint64) []string {
	var out []string
	for _, m := range migrations {
		if m.Version > v {
			out = append(out, fmt.Sprintf("%d %s", m.Version, m.Name))
		}
	}
	return out
}

// rewindTo turns e's file back into one of version v (rewind undoes the
// later layouts, the schema version is set to v), reopens it as e.db, and
// fails unless exactly the migrations after v ran and the buckets dropped
// since are gone.
func rewindTo(t *testing.T, e *env, v uint64, rewind func(tx *bbolt.Tx) error, dropped ...[]byte) *DB {
	t.Helper()
	err := e.db.bolt.Update(func(tx *bbolt.Tx) error {
		if err := rewind(tx); err != nil {
			return err
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(v))
	})
	if err != nil {
		t.Fatal(err)
	}
	db := e.reopen(t)
	if got := db.Migrated(); !slices.Equal(got, migrationsAfter(v)) {
		t.Fatalf("Migrated() = %q, want %q", got, migrationsAfter(v))
	}
	_ = db.bolt.View(func(tx *bbolt.Tx) error {
		for _, name := range dropped {
			if tx.Bucket(name) != nil {
				t.Errorf("%s survived the migration", name)
			}
		}
		return nil
	})
	return db
}

// licensesAsV5 rewrites every license record as versions 2 to 5 stored it,
// its bound devices inside, and empties license_devices: for tests that
// rewind a file to before version 7.
func licensesAsV5(tx *bbolt.Tx) error {
	bound := map[string][]string{}
	at := map[string]map[string]time.Time{}
	err := tx.Bucket(bLicDevices).ForEach(func(k, v []byte) error {
		l, d := ids(k[:16]), ids(k[16:])
		bound[l] = append(bound[l], d)
		if at[l] == nil {
			at[l] = map[string]time.Time{}
		}
		at[l][d] = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		return nil
	})
	if err != nil {
		return err
	}
	err = rewriteBucket(tx.Bucket(bLicenses), func(k, v []byte) ([]byte, error) {
		cur := new(store.License)
		if err := decode(bLicenses, k, v, cur); err != nil {
			return nil, err
		}
		return encodeRecord(&licenseV5{ID: cur.ID, AppID: cur.AppID, EnvID: cur.EnvID, Key: cur.Key, PlanID: cur.PlanID, Status: cur.Status,
			UserID: cur.UserID, EntitlementIDs: cur.EntitlementIDs, DeviceIDs: bound[cur.ID], DeviceBoundAt: at[cur.ID],
			ActivatedAt: cur.ActivatedAt, ExpiresAt: cur.ExpiresAt, DeviceResetsRemaining: cur.DeviceResetsRemaining, CreatedAt: cur.CreatedAt, UpdatedAt: cur.UpdatedAt})
	})
	if err != nil {
		return err
	}
	if err := tx.DeleteBucket(bLicDevices); err != nil {
		return err
	}
	_, err = tx.CreateBucket(bLicDevices)
	return err
}

// TestOpenMigratesV1 opens a version-1 file and reads every record back:
// each one equals, in the JSON of its domain type, the record version 1
// stored, and every other key and value is untouched.
func TestOpenMigratesV1(t *testing.T) {
	path, d := loadV1(t)
	clock := &testClock{}
	clock.ns.Store(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC).UnixNano())
	db, err := Open(path, Options{Policies: store.Policies{Clock: clock.now, Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.StoredSchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion)
	}
	if got := db.Migrated(); len(got) != len(migrations) || got[0] != "2 compact records" || got[1] != "3 organization audit by event" ||
		got[2] != "4 audit by target, packed key index" || got[3] != "5 partner identities by account" || got[4] != "6 webhook outbox events, due deliveries by endpoint" || got[5] != "7 license devices index" {
		t.Fatalf("Migrated() = %q", got)
	}
	records := map[string]func() any{}
	for _, r := range v1Records {
		records[string(r.bucket)] = r.new
	}
	n, bindings := 0, 0
	err = db.bolt.View(func(tx *bbolt.Tx) error {
		for name, pairs := range d.Buckets {
			b := tx.Bucket([]byte(name))
			if name == string(licensesInUseByPlan) || name == string(sessionsByAccess) || name == string(noncesV8) || name == string(noncesExpiryV8) || name == string(sessionsByLicense) {
				// Version 4 drops the first: plan use is read from
				// licenses_by_plan_status's counts (checkV1Reads).
				// Version 8 the second: sessions are found by the id
				// their access token names. Version 9 the nonces'
				// (empty in the fixture): used_nonces replaces them.
				// Version 11 the last: a license's sessions are found
				// through its devices.
				if b != nil {
					t.Errorf("%s survived the migration", name)
				}
				continue
			}
			// Opening also adds billing's per-organization license counts
			// (countOrgLicenses): meta and counts may gain keys.
			extra := name == string(bMeta) || name == string(bCounts)
			if got := b.Stats().KeyN; got != len(pairs) && !(extra && got > len(pairs)) {
				t.Errorf("%s: %d keys, want %d", name, got, len(pairs))
			}
			for _, p := range pairs {
				k, _ := hex.DecodeString(p.K)
				if name == string(bLicKey) {
					k = licKeyIndex(string(k)) // version 4 packs the key text
				}
				if name == string(bCounts) && (bytes.HasPrefix(k, countKey(licensesInUseByPlan, nil)) || bytes.HasPrefix(k, countKey(sessionsByLicense, nil))) {
					if b.Get(k) != nil {
						t.Errorf("count %x of the dropped index survived", k)
					}
					continue
				}
				v1, err := p.value()
				if err != nil {
					t.Fatal(err)
				}
				got := b.Get(k)
				if got == nil {
					t.Errorf("%s/%s missing", name, p.K)
					continue
				}
				if name == string(bMeta) && bytes.Equal(k, metaSchemaVersion) {
					continue
				}
				newRec, ok := records[name]
				if !ok {
					if !bytes.Equal(got, v1) {
						t.Errorf("%s/%s changed: %x, was %x", name, p.K, got, v1)
					}
					continue
				}
				want, back := newRec(), newRec()
				if err := decodeV1(v1, want); err != nil {
					t.Fatalf("%s/%s: fixture does not decode: %v", name, p.K, err)
				}
				if old, ok := want.(*licenseV5); ok {
					// Version 7 moved its devices to license_devices
					// (checkV1Bindings), version 10 counts them in the record.
					l := old.license()
					l.DevicesCount = len(old.DeviceIDs)
					want, back = l, new(store.License)
					bindings += len(old.DeviceIDs)
				}
				if err := decode([]byte(name), k, got, back); err != nil {
					t.Fatal(err)
				}
				if a, b := mustJSON(want), mustJSON(back); !bytes.Equal(a, b) {
					t.Errorf("%s/%s:\n got %s\nwant %s", name, p.K, b, a)
				}
				if len(got) >= len(v1) {
					t.Errorf("%s/%s: %d bytes, %d in version 1", name, p.K, len(got), len(v1))
				}
				n++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d records compared", n)
	}
	if bindings == 0 {
		t.Fatal("the fixture binds no device: migration 7 is not exercised")
	}
	checkV1Bindings(t, db, d)
	checkV1Reads(t, db)
}

// checkV1Reads reads the migrated fixture through the store: indexes and
// records agree, credentials still authenticate, and it takes writes.
func checkV1Reads(t *testing.T, db *DB) {
	t.Helper()
	ctx := t.Context()
	orgs, err := db.ListOrganizations(ctx)
	if err != nil || len(orgs) != 2 {
		t.Fatalf("organizations = %d, %v", len(orgs), err)
	}
	res, err := db.Login(ctx, "ana@example.com", "correct horse", time.Hour)
	if err != nil || res.Member.FirstName != "Ana" || res.Member.Phone != "+55 11 5555-0100" {
		t.Fatalf("login = %+v, %v", res, err)
	}
	apps, err := db.ListApplications(ctx, res.Member.OrgID)
	if err != nil || len(apps) != 2 {
		t.Fatalf("applications = %d, %v", len(apps), err)
	}
	var app *store.Application
	for _, a := range apps {
		if a.Name == "Desk App" {
			app = a
		}
	}
	s := store.Scope{OrgID: app.OrgID, AppID: app.ID, Env: store.EnvProduction}
	prod := app.Env(store.EnvProduction)
	if got, err := db.Runtime(RuntimeOptions{}).ResolveApp(ctx, store.RuntimeClient{PublicKey: prod.PublicKey}); err != nil || got.App.ID != app.ID || got.Env.ID != prod.ID {
		t.Fatalf("by public key = %+v, %v; want %s/%s", got, err, app.ID, prod.ID)
	}
	plans, err := db.ListPlans(ctx, s.App())
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans = %d, %v", len(plans), err)
	}
	page, err := db.ListLicenses(ctx, s, store.LicenseFilter{PageRequest: store.PageRequest{Page: 1, PerPage: 50}})
	if err != nil || page.Total != 6 || len(page.Data) != 6 {
		t.Fatalf("licenses = %+v, %v", page, err)
	}
	// Plan use comes from the status index's counts now that
	// licenses_in_use_by_plan is gone.
	if err := db.DeletePlan(ctx, s.App(), page.Data[0].PlanID); store.ErrorCode(err) != store.ECodePlanInUse {
		t.Fatalf("DeletePlan of a plan with licenses: %v, want plan_in_use", err)
	}
	bound := 0
	for _, l := range page.Data {
		det, err := db.FindLicense(ctx, s, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		bound += len(det.Devices)
	}
	if bound != 3 {
		t.Fatalf("bound devices = %d, want 3", bound)
	}
	// Organization-level entries written before the by-event index are found
	// by event after migration 3.
	all, err := db.ListOrgAudit(ctx, s.OrgID, store.AuditFilter{PageRequest: store.PageRequest{Page: 1, PerPage: 100}})
	if err != nil || all.Total == 0 {
		t.Fatalf("organization audit = %+v, %v", all, err)
	}
	byEvent := map[string]int{}
	for _, e := range all.Data {
		byEvent[e.Event]++
	}
	for event, n := range byEvent {
		got, err := db.ListOrgAudit(ctx, s.OrgID, store.AuditFilter{Event: event, PageRequest: store.PageRequest{Page: 1, PerPage: 100}})
		if err != nil || got.Total != n || len(got.Data) != n {
			t.Fatalf("organization audit ?event=%s: %d entries (%v), want %d", event, got.Total, err, n)
		}
	}
	audit, err := db.ListAudit(ctx, s, store.AuditFilter{PageRequest: store.PageRequest{Page: 1, PerPage: 100}})
	if err != nil || audit.Total != 19 {
		t.Fatalf("audit = %d, %v", audit.Total, err)
	}
	// Migration 4 lists every entry with a target in its target's history.
	byTarget := map[string]int{}
	for _, e := range audit.Data {
		if e.Target.ID != "" {
			byTarget[e.Target.ID]++
		}
	}
	for target, n := range byTarget {
		got, err := db.ListAudit(ctx, s, store.AuditFilter{TargetID: target, PageRequest: store.PageRequest{Page: 1, PerPage: 100}})
		if err != nil || got.Total != n || len(got.Data) != n {
			t.Fatalf("audit ?target_id=%s: %d entries (%v), want %d", target, got.Total, err, n)
		}
	}
	if _, err := db.GenerateLicenses(ctx, s, store.GenerateLicensesInput{PlanID: plans[0].ID, Quantity: 2}); err != nil {
		t.Fatalf("generate after migration: %v", err)
	}
}

// TestOpenMigrationIsAtomic: a version-1 record that cannot be read fails
// the open and leaves the whole file at version 1.
func TestOpenMigrationIsAtomic(t *testing.T) {
	d := readV1(t)
	lics := d.Buckets[string(bLicenses)]
	lics[len(lics)-1].JSON = json.RawMessage(`{"ID":"x","Renamed":1}`)
	path := filepath.Join(t.TempDir(), "bad.db")
	writeDump(t, path, d)
	if _, err := Open(path, Options{}); err == nil {
		t.Fatal("Open migrated a file with an unreadable record")
	}
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, _ := db.StoredSchemaVersion(); v != 1 {
		t.Fatalf("schema version %d after a failed migration, want 1", v)
	}
	err = db.bolt.View(func(tx *bbolt.Tx) error {
		k, v := tx.Bucket(bOrgs).Cursor().First()
		if !json.Valid(v) {
			t.Errorf("organization %x was rewritten", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrationsOrdered(t *testing.T) {
	for i, m := range migrations {
		if m.Version != uint64(i)+2 || m.Apply == nil || m.Name == "" {
			t.Fatalf("migration %d: %+v; versions run 2, 3, … without gaps", i, m)
		}
	}
	if last := migrations[len(migrations)-1].Version; last != SchemaVersion {
		t.Fatalf("last migration %d, SchemaVersion %d", last, SchemaVersion)
	}
}

func TestNewFileAtCurrentVersion(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "n.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.StoredSchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v", v, err)
	}
	if got := db.Migrated(); len(got) != 0 {
		t.Fatalf("a new file migrated %q", got)
	}
}

// TestReadOnlyOnV1 is a read-only handle on a version-1 file: it backs up
// and reports the version (restore relies on both) but reads no records.
func TestReadOnlyOnV1(t *testing.T) {
	path, _ := loadV1(t)
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.StoredSchemaVersion(); err != nil || v != 1 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	var buf bytes.Buffer
	if _, err := db.Backup(t.Context(), &buf); err != nil || buf.Len() == 0 {
		t.Fatalf("backup: %d bytes, %v", buf.Len(), err)
	}
	if _, err := db.ListOrganizations(t.Context()); err == nil || !strings.Contains(err.Error(), "older than this binary") {
		t.Fatalf("ListOrganizations = %v, want the version error", err)
	}
}

// migrationActivation is a license activated once through the runtime,
// for the migration tests that rewind a file holding a session.
type migrationActivation struct {
	opts   RuntimeOptions
	client store.RuntimeClient
	lic    *store.LicenseItem
	act    *store.Activation
}

// activateForMigration generates a license in e's production environment
// and activates it on a device named after the migration tested.
func activateForMigration(t *testing.T, e *env, migration string) migrationActivation {
	t.Helper()
	m := migrationActivation{
		opts: RuntimeOptions{
			Signer: testSigner, SessionOf: testSessionOf,
			AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: time.Hour,
		},
		client: store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction},
		lic:    e.mustGenerate(t, store.GenerateLicensesInput{PlanID: e.mustPlan(t).ID})[0],
	}
	var err error
	m.act, err = e.db.Runtime(m.opts).Activate(e.ctx, m.client, store.ActivateInput{LicenseKey: m.lic.Key, Fingerprint: "fp-migrate-" + migration,
		Replay: store.Replay{Timestamp: e.clock.now(), Nonce: "migrate-nonce-" + migration + "-pad"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMigrateAccessIndexFromV7 writes a version-7 file, whose sessions were
// found through an index of access-token hashes, and opens it: the index is
// dropped and a token issued before still validates, found by the session
// id it carries; a token naming that session without its secret does not.
func TestMigrateAccessIndexFromV7(t *testing.T) {
	e := newEnv(t)
	m := activateForMigration(t, e, "8")
	opts, client, act := m.opts, m.client, m.act
	db := rewindTo(t, e, 7, func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(sessionsByAccess)
		if err != nil {
			return err
		}
		return b.Put([]byte(store.HashSecret(act.AccessToken)), idb(act.SessionID))
	}, sessionsByAccess)
	rt := db.Runtime(opts)
	for _, c := range []struct {
		token string
		valid bool
	}{
		{act.AccessToken, true},
		{"at." + act.SessionID + ".forged", false},
		{"at.not-an-id.x", false},
		{"no-session-id", false},
	} {
		v, err := rt.Validate(e.ctx, client, c.token)
		if err != nil {
			t.Fatal(err)
		}
		if v.Valid != c.valid {
			t.Errorf("Validate(%q) = %+v, want valid %v", c.token, v, c.valid)
		}
	}
}

// TestMigrateLicenseSessionsFromV10 writes a version-10 file, which indexed
// sessions by license (and once counted them), and opens it: the index and
// its count are gone, and the license's session is still counted and
// revoked with it, found through its device.
func TestMigrateLicenseSessionsFromV10(t *testing.T) {
	e := newEnv(t)
	m := activateForMigration(t, e, "11")
	opts, client, lic, act := m.opts, m.client, m.lic, m.act
	db := rewindTo(t, e, 10, func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(sessionsByLicense)
		if err != nil {
			return err
		}
		if err := b.Put(key(idb(lic.ID), idb(act.SessionID)), []byte{}); err != nil {
			return err
		}
		return tx.Bucket(bCounts).Put(countKey(sessionsByLicense, idb(lic.ID)), u64(1))
	}, sessionsByLicense)
	_ = db.bolt.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bCounts).Get(countKey(sessionsByLicense, idb(lic.ID))) != nil {
			t.Error("the count of the dropped index survived")
		}
		return nil
	})
	if n, err := db.CountLicenseSessions(e.ctx, e.scope, lic.ID); err != nil || n != 1 {
		t.Fatalf("CountLicenseSessions = %d, %v; want 1", n, err)
	}
	if _, err := db.SetLicenseStatus(e.ctx, e.scope, lic.ID, store.LicenseSuspended); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetLicenseStatus(e.ctx, e.scope, lic.ID, store.LicenseActive); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountLicenseSessions(e.ctx, e.scope, lic.ID); err != nil || n != 0 {
		t.Fatalf("CountLicenseSessions after the suspension = %d, %v; want 0", n, err)
	}
	if v, err := db.Runtime(opts).Validate(e.ctx, client, act.AccessToken); err != nil || v.Valid {
		t.Fatalf("Validate after the suspension = %+v, %v; want revoked", v, err)
	}
}

// TestMigrateNoncesFromV8 writes a version-8 file, whose used nonces were
// keyed by environment and nonce with a second index by expiry, and opens
// it: the nonce is still refused until its window ends, then swept, and the
// old buckets are gone.
func TestMigrateNoncesFromV8(t *testing.T) {
	e := newEnv(t)
	opts := RuntimeOptions{Signer: testSigner, SessionOf: testSessionOf,
		AccessTTL: time.Hour, RefreshIdleTTL: time.Hour, RefreshAbsoluteTTL: 24 * time.Hour, ReplayWindow: 5 * time.Minute}
	client := store.RuntimeClient{AppID: e.scope.AppID, Env: store.EnvProduction}
	lics := e.mustGenerate(t, store.GenerateLicensesInput{PlanID: e.mustPlan(t).ID, Quantity: 2})
	const nonce = "migrate-nonce-0009"
	activate := func(rt *Runtime, key, fp, nonce string) error {
		_, err := rt.Activate(e.ctx, client, store.ActivateInput{LicenseKey: key, Fingerprint: fp, Replay: store.Replay{Timestamp: e.clock.now(), Nonce: nonce}})
		return err
	}
	if err := activate(e.db.Runtime(opts), lics[0].Key, "fp-migrate-9", nonce); err != nil {
		t.Fatal(err)
	}
	// Back to version 8: the same use in the two old buckets.
	db := rewindTo(t, e, 8, func(tx *bbolt.Tx) error {
		var k, v []byte
		if err := tx.Bucket(bNonces).ForEach(func(nk, nv []byte) error { k, v = clone(nk[8:]), clone(nv); return nil }); err != nil {
			return err
		}
		if k == nil {
			return fmt.Errorf("no used nonce")
		}
		if err := tx.DeleteBucket(bNonces); err != nil {
			return err
		}
		old, err := tx.CreateBucket(noncesV8)
		if err != nil {
			return err
		}
		idx, err := tx.CreateBucket(noncesExpiryV8)
		if err != nil {
			return err
		}
		if err := old.Put(k, v); err != nil {
			return err
		}
		return idx.Put(key(v, k), []byte{})
	}, noncesV8, noncesExpiryV8)
	rt := db.Runtime(opts)
	if err := activate(rt, lics[1].Key, "fp-migrate-9b", nonce); store.ErrorCode(err) != store.ECodeNonceReused {
		t.Fatalf("the nonce used before the migration: %v; want nonce_reused", err)
	}
	if n, err := rt.SweepNonces(e.ctx, 100); err != nil || n != 0 {
		t.Fatalf("SweepNonces inside the window = %d, %v; want 0", n, err)
	}
	e.clock.advance(11 * time.Minute)
	if n, err := rt.SweepNonces(e.ctx, 100); err != nil || n != 1 {
		t.Fatalf("SweepNonces after the window = %d, %v; want 1", n, err)
	}
	if err := activate(rt, lics[1].Key, "fp-migrate-9b", nonce); err != nil {
		t.Fatalf("the nonce after its window: %v", err)
	}
}

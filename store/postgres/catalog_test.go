package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storetest"
)

// catalogOrg writes an organization straight into the table: these tests
// are about the catalog, not about how organizations are made.
func catalogOrg(t testing.TB, db *DB, slug string) string {
	t.Helper()
	now := db.Clock()
	org := &store.Organization{ID: store.NewID(), Name: slug, Slug: slug, CreatedAt: now, UpdatedAt: now}
	if _, err := db.pool.Exec(context.Background(), `INSERT INTO orgs (id, slug, doc) VALUES ($1, $2, $3)`, org.ID, org.Slug, js(org)); err != nil {
		t.Fatal(err)
	}
	return org.ID
}

// catalogCount counts the rows sql selects.
func catalogCount(t *testing.T, db *DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestCatalogPoliciesVerbatim: a plan's policies read back byte for byte
// (docs/design.md §6), white space and characters encoding/json would
// escape included, through every read; null clears them.
func TestCatalogPoliciesVerbatim(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	org := catalogOrg(t, db, "verbatim")
	a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Verbatim"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: org, AppID: a.ID}
	pol := json.RawMessage(`{ "html": "<b>&amp;</b>",  "n" : [1, 2.50, 1e3], "Policies":null, "u": "\u00e9" }`)
	name := `Pro "Policies":null`
	p, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: &name, Policies: pol, PoliciesSet: true})
	if err != nil {
		t.Fatal(err)
	}
	want := func(what string, got json.RawMessage) {
		t.Helper()
		if string(got) != string(pol) {
			t.Fatalf("%s: policies = %s, want %s", what, got, pol)
		}
	}
	want("CreatePlan", p.Policies)
	found, err := db.FindPlan(ctx, ref, p.ID)
	if err != nil || found.Name != name {
		t.Fatalf("FindPlan = %+v, %v", found, err)
	}
	want("FindPlan", found.Policies)
	list, err := db.ListPlans(ctx, ref)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListPlans = %+v, %v", list, err)
	}
	want("ListPlans", list[0].Policies)
	up, err := db.UpdatePlan(ctx, ref, p.ID, store.PlanInput{MaxDevices: ptrTo(4)})
	if err != nil {
		t.Fatal(err)
	}
	want("UpdatePlan", up.Policies)
	if found, _ = db.FindPlan(ctx, ref, p.ID); string(found.Policies) != string(pol) || found.MaxDevices != 4 {
		t.Fatalf("after an update of another field = %+v", found)
	}
	if up, err = db.UpdatePlan(ctx, ref, p.ID, store.PlanInput{Policies: json.RawMessage("null"), PoliciesSet: true}); err != nil || up.Policies != nil {
		t.Fatalf("UpdatePlan(null policies) = %s, %v", up.Policies, err)
	}
	if found, _ = db.FindPlan(ctx, ref, p.ID); found.Policies != nil {
		t.Fatalf("policies after null = %s, want none", found.Policies)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestCatalogPurge: deleting an application for good removes every row
// under it in every shared table, and nothing of another application; a
// payload another application's delivery still uses is kept.
func TestCatalogPurge(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	org := catalogOrg(t, db, "purge")
	seed := func(name string) (*store.Application, string) {
		a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: org, AppID: a.ID}
		e, err := db.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: "pro", Name: "Pro"})
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: ptrTo("Pro"), EntitlementIDs: &[]string{e.ID}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: a.Env(store.EnvProduction).ID}); err != nil {
			t.Fatal(err)
		}
		env := a.Env(store.EnvProduction).ID
		lic, user, dev, hook := store.NewID(), store.NewID(), store.NewID(), store.NewID()
		now := db.Clock()
		for _, s := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO end_users (id, app_id, env_id, email, status, doc) VALUES ($1, $2, $3, 'u@purge.test', 'active', '{}')`, []any{user, a.ID, env}},
			{`INSERT INTO devices (id, app_id, env_id, fingerprint, status, doc) VALUES ($1, $2, $3, 'pc', 'active', '{}')`, []any{dev, a.ID, env}},
			{`INSERT INTO licenses (id, org_id, app_id, env_id, key, plan_id, status, user_id, doc) VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, '{}')`,
				[]any{lic, org, a.ID, env, "KEY-" + name, p.ID, user}},
			{`INSERT INTO license_devices (license_id, device_id, bound_at) VALUES ($1, $2, $3)`, []any{lic, dev, now}},
			{`INSERT INTO sessions (id, app_id, env_id, license_id, user_id, device_id, access_hash, refresh_hash, access_expires_at, refresh_expires_at, absolute_expires_at, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, 'a', 'r', $7, $7, $7, $7)`, []any{store.NewID(), a.ID, env, lic, user, dev, now}},
			{`INSERT INTO leases (id, org_id, app_id, env_id, license_id, device_id, fingerprint, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'pc', $7, $7)`,
				[]any{store.NewID(), org, a.ID, env, lic, dev, now}},
			{`INSERT INTO nonces (env_id, nonce, expires_at) VALUES ($1, 'n', $2)`, []any{env, now}},
			{`INSERT INTO webhooks (id, org_id, app_id, status, doc) VALUES ($1, $2, $3, 'active', '{}')`, []any{hook, org, a.ID}},
			{`INSERT INTO outbox_events (id, org_id, app_id, event, created_at, body) VALUES ($1, $2, $3, 'license.created', $4, 'x')`, []any{store.NewID(), org, a.ID, now}},
		} {
			if _, err := db.pool.Exec(ctx, s.sql, s.args...); err != nil {
				t.Fatalf("%s: %v", s.sql, err)
			}
		}
		return a, hook
	}
	gone, goneHook := seed("Gone")
	kept, keptHook := seed("Kept")
	// One organization-level event's payload shared by a delivery of each
	// application's endpoint, and one only the deleted one's uses.
	shared, own := store.NewID(), store.NewID()
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO outbox_bodies (event_id, body) VALUES ($1, 'shared'), ($2, 'own')`, []any{shared, own}},
		{`INSERT INTO webhook_deliveries (id, org_id, app_id, webhook_id, status, body_of, doc) VALUES
			($1, $4, $5, $6, 'pending', $2, '{}'), ($7, $4, $5, $6, 'pending', $3, '{}'), ($8, $4, $9, $10, 'pending', $2, '{}')`,
			[]any{store.NewID(), shared, own, org, gone.ID, goneHook, store.NewID(), store.NewID(), kept.ID, keptHook}},
	} {
		if _, err := db.pool.Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
	}
	if err := db.DeleteApplication(ctx, store.AppRef{OrgID: org, AppID: gone.ID}, true); err != nil {
		t.Fatal(err)
	}
	envs := func(a *store.Application) []string { return a.EnvIDs() }
	for _, c := range []struct{ table, where string }{
		{"apps", "id = $1"}, {"app_envs", "app_id = $1"}, {"entitlements", "app_id = $1"}, {"plans", "app_id = $1"},
		{"app_secrets", "app_id = $1"}, {"licenses", "app_id = $1"}, {"end_users", "app_id = $1"}, {"devices", "app_id = $1"},
		{"sessions", "app_id = $1"}, {"leases", "app_id = $1"}, {"webhooks", "app_id = $1"}, {"webhook_deliveries", "app_id = $1"},
		{"outbox_events", "app_id = $1"},
	} {
		sql := `SELECT count(*) FROM ` + c.table + ` WHERE ` + c.where
		if n := catalogCount(t, db, sql, gone.ID); n != 0 {
			t.Errorf("%s of the deleted application: %d rows left", c.table, n)
		}
		if n := catalogCount(t, db, sql, kept.ID); n == 0 {
			t.Errorf("%s of the other application: none left", c.table)
		}
	}
	for _, c := range []struct{ table, where string }{
		{"nonces", "env_id = ANY($1)"}, {"audit", "env_ids && $1::uuid[]"},
		{"license_devices", "license_id IN (SELECT id FROM licenses WHERE env_id = ANY($1))"},
	} {
		sql := `SELECT count(*) FROM ` + c.table + ` WHERE ` + c.where
		if n := catalogCount(t, db, sql, envs(gone)); n != 0 {
			t.Errorf("%s of the deleted application: %d rows left", c.table, n)
		}
		if n := catalogCount(t, db, sql, envs(kept)); n == 0 {
			t.Errorf("%s of the other application: none left", c.table)
		}
	}
	if n := catalogCount(t, db, `SELECT count(*) FROM license_devices`); n != 1 {
		t.Errorf("license_devices: %d rows, want the other application's 1", n)
	}
	if n := catalogCount(t, db, `SELECT count(*) FROM outbox_bodies WHERE event_id = $1`, shared); n != 1 {
		t.Errorf("the payload another delivery uses: %d rows, want 1", n)
	}
	if n := catalogCount(t, db, `SELECT count(*) FROM outbox_bodies WHERE event_id = $1`, own); n != 0 {
		t.Errorf("the payload only the deleted deliveries used: %d rows, want 0", n)
	}
	p, err := db.ListOrgAudit(ctx, org, store.AuditFilter{Event: store.EventApplicationDeleted})
	if err != nil || p.Total != 1 || p.Data[0].Target.ID != gone.ID {
		t.Fatalf("application.deleted in the organization's log = %+v, %v", p, err)
	}
}

// TestCatalogSlugAcrossServers: two servers creating one slug at once give
// one application; the others are told slug_taken, as bbolt tells them.
// TestCatalogOrgSlugsAcrossServers: organizations of one name created at
// once on two servers all succeed, each with a slug of its own (the unique
// constraint picks them, the transaction going on past a conflict).
func TestCatalogOrgSlugsAcrossServers(t *testing.T) {
	ctx := context.Background()
	dbs := twoServers(t, Options{})
	const n = 12
	slugs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := dbs[i%2].CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Same Org"})
			if errs[i] = err; err == nil {
				slugs[i] = o.Slug
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("CreateOrganization: %v", err)
		}
		if seen[slugs[i]] {
			t.Fatalf("slug %q given twice: %v", slugs[i], slugs)
		}
		seen[slugs[i]] = true
	}
	for i := 1; i <= n; i++ {
		want := "same-org"
		if i > 1 {
			want = fmt.Sprintf("same-org-%d", i)
		}
		if !seen[want] {
			t.Fatalf("slugs %v lack %q", slugs, want)
		}
	}
}

func TestCatalogSlugAcrossServers(t *testing.T) {
	ctx := context.Background()
	dbs := twoServers(t, Options{})
	org := catalogOrg(t, dbs[0], "race")
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = dbs[i%2].CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Same", Slug: "same"})
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch store.ErrorCode(err) {
		case "":
			ok++
		case store.ECodeSlugTaken:
		default:
			t.Fatalf("CreateApplication: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d applications created with one slug, want 1", ok)
	}
	if list, err := dbs[1].ListApplications(ctx, org); err != nil || len(list) != 1 {
		t.Fatalf("ListApplications = %d, %v; want 1", len(list), err)
	}
}

// TestCatalogRevocationAcrossServers: a key revoked on one server is
// refused on the other at once, and the other's record of its use does not
// bring it back.
func TestCatalogRevocationAcrossServers(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Now())
	dbs := twoServers(t, Options{Policies: store.Policies{Clock: clock.Now}})
	org := catalogOrg(t, dbs[0], "revoke")
	k, plain, err := dbs[0].CreateAPIKey(ctx, org, "ci")
	if err != nil {
		t.Fatal(err)
	}
	got, err := dbs[1].AuthenticateAPIKey(ctx, plain)
	if err != nil || got.ID != k.ID || got.LastUsedAt == nil || !got.LastUsedAt.Equal(clock.Now()) {
		t.Fatalf("AuthenticateAPIKey on the other server = %+v, %v; want its use noted", got, err)
	}
	clock.Advance(30 * time.Second)
	if again, err := dbs[0].AuthenticateAPIKey(ctx, plain); err != nil || !again.LastUsedAt.Equal(*got.LastUsedAt) {
		t.Fatalf("AuthenticateAPIKey within the granularity = %+v, %v; want the use not written again", again, err)
	}
	clock.Advance(time.Minute)
	if err := dbs[0].RevokeAPIKey(ctx, org, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = dbs[1].AuthenticateAPIKey(ctx, plain)
	if store.ErrorCode(err) != store.ECodeUnauthenticated {
		t.Fatalf("AuthenticateAPIKey after revocation on the other server: %v", err)
	}
	keys, err := dbs[1].ListAPIKeys(ctx, org)
	if err != nil || len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Fatalf("ListAPIKeys = %+v, %v", keys, err)
	}
}

// TestCatalogRetentionPassLock: the retention pass does nothing while
// another server holds its lock, and prunes once it is free.
func TestCatalogRetentionPassLock(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Now())
	db := openTest(t, Options{Policies: store.Policies{Clock: clock.Now}})
	policy := storetest.Billing(false) // the free tier keeps its log 7 days
	if err := db.ConfigureBilling(policy); err != nil {
		t.Fatal(err)
	}
	org := catalogOrg(t, db, "retained")
	for range 3 {
		if _, _, err := db.CreateAPIKey(ctx, org, "old"); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(8 * 24 * time.Hour)
	if _, _, err := db.CreateAPIKey(ctx, org, "new"); err != nil {
		t.Fatal(err)
	}
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_xact_lock(`+passLockKey+`)`, "audit retention"); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PruneAudit(ctx, 10); err != nil || n != 0 {
		t.Fatalf("PruneAudit while another server holds the pass = %d, %v; want 0", n, err)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PruneAudit(ctx, 2); err != nil || n != 2 {
		t.Fatalf("PruneAudit(batch 2) = %d, %v; want 2", n, err)
	}
	if n, err := db.PruneAudit(ctx, 10); err != nil || n != 1 {
		t.Fatalf("PruneAudit(the rest) = %d, %v; want 1", n, err)
	}
	p, err := db.ListOrgAudit(ctx, org, store.AuditFilter{})
	if err != nil || p.Total != 1 || p.Data[0].Metadata["label"] != "new" {
		t.Fatalf("audit after pruning = %+v, %v; want the recent key only", p, err)
	}
}

// TestCatalogAuditOrder: the log is newest first by the change's clock
// reading, then id, whatever order the ids were drawn in; every filter
// pages by cursor over each entry once, and a cursor of another filter is
// refused.
func TestCatalogAuditOrder(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Now())
	db := openTest(t, Options{Policies: store.Policies{Clock: clock.Now}})
	org := catalogOrg(t, db, "ordered")
	start := clock.Now()
	var labels []string
	// Each key is written an hour before the one before it: ids ascend
	// while clock readings descend.
	for i := range 7 {
		clock.Set(start.Add(-time.Duration(i) * time.Hour))
		label := string(rune('a' + i))
		labels = append(labels, label)
		if _, _, err := db.CreateAPIKey(ctx, org, label); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.ListOrgAudit(ctx, org, store.AuditFilter{})
	if err != nil || all.Total != 7 {
		t.Fatalf("ListOrgAudit = %+v, %v", all, err)
	}
	for i, e := range all.Data {
		if e.Metadata["label"] != labels[i] {
			t.Fatalf("entry %d = %v, want %s (newest clock reading first)", i, e.Metadata["label"], labels[i])
		}
	}
	t.Run("Environment", func(t *testing.T) {
		a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Ordered"})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: org, AppID: a.ID}
		// Application-level entries (both logs) and one environment's
		// (its log only), interleaved, each an hour before the last.
		want := []string{""} // application.created, at the last reading above
		for i := range 6 {
			clock.Set(start.Add(-time.Duration(10+i) * time.Hour))
			name := string(rune('a' + i))
			env := a.Environments[i%2]
			if i%3 == 0 {
				if _, err := db.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: "k" + name, Name: name}); err != nil {
					t.Fatal(err)
				}
			} else if _, _, err := db.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: env.ID, Label: name}); err != nil {
				t.Fatal(err)
			}
			if i%3 == 0 || env.Name == store.EnvProduction {
				want = append(want, name)
			}
		}
		sc := store.Scope{OrgID: org, AppID: a.ID, Env: store.EnvProduction}
		var got []string
		f := store.AuditFilter{PageRequest: store.PageRequest{PerPage: 2}}
		for {
			p, err := db.ListAudit(ctx, sc, f)
			if err != nil || p.Total != len(want) {
				t.Fatalf("ListAudit = %+v, %v; want %d entries", p, err, len(want))
			}
			for _, e := range p.Data {
				name, _ := e.Metadata["label"].(string)
				if n, ok := e.Metadata["name"].(string); ok && e.Event == store.EventEntitlementCreated {
					name = n
				}
				got = append(got, name)
			}
			if p.NextCursor == "" {
				break
			}
			f.Cursor = p.NextCursor
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("production's log = %q, want %q (newest clock reading first)", got, want)
		}
		p, err := db.ListAudit(ctx, sc, store.AuditFilter{Event: store.EventSecretCreated, PageRequest: store.PageRequest{Page: 2, PerPage: 1}})
		if err != nil || p.Total != 2 || len(p.Data) != 1 || p.Data[0].Metadata["label"] != "f" {
			t.Fatalf("ListAudit(secret.created, page 2) = %+v, %v; want f", p, err)
		}
	})
	from, to := start.Add(-5*time.Hour), start.Add(-time.Hour+time.Nanosecond)
	for _, f := range []store.AuditFilter{{}, {Event: store.EventAPIKeyCreated}, {From: &from, To: &to}, {TargetID: all.Data[3].Target.ID}} {
		want := 0
		for _, e := range all.Data {
			if (f.From == nil || !e.CreatedAt.Before(*f.From)) && (f.To == nil || e.CreatedAt.Before(*f.To)) && (f.TargetID == "" || e.Target.ID == f.TargetID) {
				want++
			}
		}
		seen := map[string]bool{}
		f.PageRequest = store.PageRequest{PerPage: 2}
		for i := 0; ; i++ {
			p, err := db.ListOrgAudit(ctx, org, f)
			if err != nil || i == 10 {
				t.Fatalf("%+v page %d: %v", f, i+1, err)
			}
			for _, e := range p.Data {
				if seen[e.ID] {
					t.Fatalf("%+v: %s on two pages", f, e.ID)
				}
				seen[e.ID] = true
			}
			if p.Total != want {
				t.Fatalf("%+v: total %d, want %d", f, p.Total, want)
			}
			if p.NextCursor == "" {
				break
			}
			other := store.AuditFilter{Event: store.EventAPIKeyRevoked, PageRequest: store.PageRequest{Cursor: p.NextCursor}}
			if _, err := db.ListOrgAudit(ctx, org, other); store.ErrorCode(err) != store.ECodeValidation {
				t.Fatalf("a cursor of %+v on another filter: %v", f, err)
			}
			f.Cursor = p.NextCursor
		}
		if len(seen) != want {
			t.Fatalf("%+v by cursor saw %d entries, want %d", f, len(seen), want)
		}
	}
}

// TestCatalogPurgeRacesWrites: records written under an application on one
// server while another deletes it for good either are purged with it or
// are refused: none is left behind under an application that is gone.
func TestCatalogPurgeRacesWrites(t *testing.T) {
	ctx := context.Background()
	dbs := twoServers(t, Options{})
	org := catalogOrg(t, dbs[0], "racing")
	for round := range 4 {
		a, err := dbs[0].CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Racing", Slug: "racing-" + string(rune('a'+round))})
		if err != nil {
			t.Fatal(err)
		}
		ref := store.AppRef{OrgID: org, AppID: a.ID}
		sc := store.Scope{OrgID: org, AppID: a.ID, Env: store.EnvProduction}
		var wg sync.WaitGroup
		writes := []func(db *DB, i int) error{
			func(db *DB, i int) error {
				_, err := db.CreateEntitlement(ctx, ref, store.CreateEntitlementInput{Key: "k" + string(rune('a'+i)), Name: "K"})
				return err
			},
			func(db *DB, i int) error {
				_, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: ptrTo("P")})
				return err
			},
			func(db *DB, i int) error {
				_, _, err := db.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: a.Env(store.EnvProduction).ID})
				return err
			},
			func(db *DB, i int) error {
				_, err := db.RegisterEndUser(ctx, sc, "u"+string(rune('a'+i))+"@racing.test", "correct horse battery")
				return err
			},
			func(db *DB, i int) error {
				_, err := db.CreateWebhook(ctx, ref, "https://h"+string(rune('a'+i))+".example.com/hook", []string{store.EventLicenseCreated})
				return err
			},
		}
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := writes[i%len(writes)](dbs[i%2], i)
				// A permanent deletion disables the application first.
				if c := store.ErrorCode(err); c != "" && c != store.ECodeNotFound && c != store.ECodeAppDisabled {
					t.Errorf("a write racing the purge: %v", err)
				}
			}()
			if i == 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := dbs[1].DeleteApplication(ctx, ref, true); err != nil {
						t.Errorf("DeleteApplication: %v", err)
					}
				}()
			}
		}
		wg.Wait()
		for _, table := range []string{"entitlements", "plans", "app_secrets", "end_users", "webhooks"} {
			if n := catalogCount(t, dbs[0], `SELECT count(*) FROM `+table+` WHERE app_id = $1`, a.ID); n != 0 {
				t.Fatalf("round %d: %d rows of %s left under the deleted application", round, n, table)
			}
		}
		if n := catalogCount(t, dbs[0], `SELECT count(*) FROM audit WHERE app_id = $1`, a.ID); n != 0 {
			t.Fatalf("round %d: %d audit entries left of the deleted application", round, n)
		}
	}
}

package storetest

import (
	"testing"

	"licensectl/store"
)

// testLogReadScopes: the audit log, the credentials and the endpoints are
// read only in their own organization, application and environment.
func testLogReadScopes(t *testing.T, open Opener) {
	f := newFixture(t, open)
	theirOrg, theirApp := seedOrg(t, f.db, f.ctx)
	theirRef := store.AppRef{OrgID: theirOrg.ID, AppID: theirApp.ID}
	theirs := store.AppRef{OrgID: f.org.ID, AppID: theirApp.ID} // my organization, their application
	theirKey, _, err := f.db.CreateAPIKey(f.ctx, theirOrg.ID, "theirs")
	if err != nil {
		t.Fatal(err)
	}
	theirHook, err := f.db.CreateWebhook(f.ctx, theirRef, "https://theirs.example.com/hook", []string{"license.*"})
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, u := range []string{"https://a.example.com/hook", "https://b.example.com/hook"} {
		w, err := f.db.CreateWebhook(f.ctx, f.ref(), u, []string{"license.*"})
		if err != nil {
			t.Fatal(err)
		}
		mine = append([]string{w.ID}, mine...) // newest first
	}
	f.licenses(t, store.PlanInput{Name: ptr("Mine")}, 1)

	t.Run("ErrNotFound", func(t *testing.T) {
		theirScope := store.Scope{OrgID: f.org.ID, AppID: theirApp.ID, Env: store.EnvProduction}
		for _, c := range []struct {
			what string
			call func() error
		}{
			{"ListAudit(their application)", func() error { _, err := f.db.ListAudit(f.ctx, theirScope, store.AuditFilter{}); return err }},
			{"ListAppSecrets(their application)", func() error { _, err := f.db.ListAppSecrets(f.ctx, theirs); return err }},
			{"ListWebhooks(their application)", func() error { _, err := f.db.ListWebhooks(f.ctx, theirs); return err }},
		} {
			wantCode(t, c.what, c.call(), store.ECodeNotFound)
		}
	})

	t.Run("OKOwnRecordsOnly", func(t *testing.T) {
		keys, err := f.db.ListAPIKeys(f.ctx, f.org.ID)
		for _, k := range keys {
			if k.ID == theirKey.ID {
				t.Fatalf("ListAPIKeys answered another organization's key")
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		hooks, err := f.db.ListWebhooks(f.ctx, f.ref())
		if err != nil || len(hooks) != 2 || hooks[0].ID != mine[0] || hooks[1].ID != mine[1] {
			t.Fatalf("ListWebhooks = %+v, %v; want %v (not %s)", hooks, err, mine, theirHook.ID)
		}
		for _, c := range []struct {
			what string
			s    store.Scope
			f    store.AuditFilter
			want int
		}{
			{"production license.created", f.scope(store.EnvProduction), store.AuditFilter{Event: store.EventLicenseCreated}, 1},
			{"development license.created", f.scope(store.EnvDevelopment), store.AuditFilter{Event: store.EventLicenseCreated}, 0},
			{"their endpoint's history", f.scope(store.EnvProduction), store.AuditFilter{TargetID: theirHook.ID}, 0},
		} {
			p, err := f.db.ListAudit(f.ctx, c.s, c.f)
			if err != nil || p.Total != c.want || len(p.Data) != c.want {
				t.Fatalf("ListAudit(%s) = %+v, %v; want %d entries", c.what, p, err, c.want)
			}
		}
		p, err := f.db.ListOrgAudit(f.ctx, f.org.ID, store.AuditFilter{Event: store.EventAPIKeyCreated})
		if err != nil || p.Total != 0 {
			t.Fatalf("ListOrgAudit(api_key.created) = %+v, %v; want none of theirs", p, err)
		}
	})
}

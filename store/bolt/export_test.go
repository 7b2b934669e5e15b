package bolt

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storetest"
)

// exportedFrom names, for every bucket of the file, the kind of the copy
// that carries its records, or "" for an index or count that the target
// rebuilds from those records (docs/design.md §12, "Moving from the file").
// A new bucket fails TestExportCoversEveryBucket until it is placed here,
// so that a copy cannot silently leave data behind.
var exportedFrom = map[string]store.CopyKind{
	"meta": store.CopyMeta, "counts": "",
	"orgs": store.CopyOrganizations, "orgs_by_slug": "",
	"members": store.CopyMembers, "members_by_email": "", "members_by_org": "",
	"dashboard_sessions": store.CopyDashboardSessions, "dashboard_sessions_by_member": "",
	"mail_tokens": store.CopyMailTokens, "used_challenges": store.CopyUsedChallenges,
	"apps": store.CopyApplications, "apps_by_org": "", "apps_by_slug": "", "apps_by_public_key": "",
	"api_keys": store.CopyAPIKeys, "api_keys_by_org": "", "api_keys_by_hash": "",
	"secrets": store.CopyAppSecrets, "secrets_by_app": "", "secrets_by_hash": "",
	"entitlements": store.CopyEntitlements, "entitlements_by_app": "", "entitlements_by_key": "",
	"plans": store.CopyPlans, "plans_by_app": "",
	"licenses": store.CopyLicenses, "licenses_by_key": "", "licenses_by_env": "", "licenses_by_env_status": "",
	"licenses_by_env_plan": "", "licenses_by_plan_status": "", "licenses_by_expiry": "", "licenses_by_env_user": "",
	"license_devices": store.CopyLicenseDevices,
	"end_users":       store.CopyEndUsers, "end_users_by_env": "", "end_users_by_env_status": "", "end_users_by_email": "",
	"devices": store.CopyDevices, "devices_by_env": "", "devices_by_env_status": "", "devices_by_fingerprint": "",
	"sessions": store.CopySessions, "sessions_by_refresh": "",
	"sessions_by_user": "", "sessions_by_device": "",
	"used_nonces":   store.CopyNonces,
	"runtime_usage": store.CopyUsage,
	// audit_by_env is an index, but the export reads it for the logs that
	// list each entry (CopyAuditEntry.EnvIDs).
	"audit": store.CopyAudit, "audit_by_env": store.CopyAudit, "audit_by_env_event": "", "audit_by_org": "",
	"audit_by_org_event": "", "audit_by_target": "",
	"subscriptions": store.CopySubscriptions, "billing_transactions": store.CopyBillingTransactions,
	"billing_transactions_by_exp": "", "onboarding": store.CopyOnboarding,
	"partner_attempts": store.CopyPartnerAttempts, "partner_identities": store.CopyPartnerIdentities,
	"partner_identities_by_member": "",
	"webhooks":                     store.CopyWebhooks, "webhooks_by_app": "", "webhooks_by_org": "",
	"webhook_deliveries": store.CopyDeliveries, "webhook_deliveries_by_hook": "", "webhook_deliveries_by_status": "",
	"webhook_deliveries_due": "", "webhook_deliveries_done": "", "webhook_deliveries_due_by_hook": "",
	"outbox_events": store.CopyOutboxEvents, "outbox_events_by_scope": "", "outbox_bodies": store.CopyOutboxBodies,
	"leases": store.CopyLeases, "leases_by_license": "", "leases_by_device": "", "leases_by_expiry": "",
	// The shared counters of the login throttles and the mail cap: windows
	// of minutes, not copied (docs/decisions.md, "store copy").
	"shared_counters": "",
}

func TestExportCoversEveryBucket(t *testing.T) {
	kinds := map[store.CopyKind]bool{}
	for _, b := range allBuckets {
		k, ok := exportedFrom[string(b)]
		if !ok {
			t.Errorf("bucket %s: neither exported nor listed as an index in exportedFrom", b)
		}
		kinds[k] = true
	}
	for _, k := range store.CopyKinds() {
		if !kinds[k] {
			t.Errorf("kind %s comes from no bucket", k)
		}
	}
}

// TestExportReadOnly: the export reads a file opened read-only, as
// `licensectl store copy` opens it, and counts what it emits.
func TestExportReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "licensectl.db")
	clock := storetest.NewClock(time.Now())
	db, err := Open(path, Options{Policies: store.Policies{Hasher: fakeHasher{}, Clock: clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	seed := storetest.SeedCopy(t, db, FixturesOf(db), clock)
	db.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	emitted := store.CopyCounts{}
	var sessions []*store.CopySession
	logs := map[string][]string{} // environment ("" for the organization) → entries
	counts, err := ro.ExportRecords(context.Background(), func(r store.CopyRecord) error {
		emitted[r.Kind]++
		switch v := r.Value.(type) {
		case *store.CopySession:
			sessions = append(sessions, v)
		case *store.CopyAuditEntry:
			if len(v.EnvIDs) == 0 {
				logs[""] = append(logs[""], v.Entry.ID)
			}
			for _, env := range v.EnvIDs {
				logs[env] = append(logs[env], v.Entry.ID)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := counts.Diff(emitted); d != "" {
		t.Errorf("counted ≠ emitted: %s", d)
	}
	// Each log lists what the file's own log reads answer.
	ctx := context.Background()
	org, err := ro.ListOrgAudit(ctx, seed.Org.ID, store.AuditFilter{PageRequest: store.PageRequest{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	wantLogs := map[string][]string{"": auditIDs(org.Data)}
	for _, env := range seed.App.Environments {
		p, err := ro.ListAudit(ctx, store.Scope{OrgID: seed.Org.ID, AppID: seed.App.ID, Env: env.Name}, store.AuditFilter{PageRequest: store.PageRequest{PerPage: 100}})
		if err != nil {
			t.Fatal(err)
		}
		wantLogs[env.ID] = auditIDs(p.Data)
	}
	for log, want := range wantLogs {
		got := slices.Clone(logs[log])
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("log %q: exported %v, the file lists %v", log, got, want)
		}
	}
	if len(sessions) != 2 || sessions[1].ID != seed.SessionIDs[1] || sessions[1].RefreshHash != store.HashSecret(seed.LegacyRefreshToken) {
		t.Errorf("sessions %+v: want the seed's two, the second with the legacy refresh token's hash", sessions)
	}
}

// auditIDs lists the ids of entries, sorted.
func auditIDs(entries []*store.AuditEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

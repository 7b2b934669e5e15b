package storetest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// testPayloads: the object a delivery carries is the snapshot of the record
// as a read right after the change returns it (docs/design.md §9: the
// management list-item shape, never a secret), for the kinds whose record
// the store must read besides its own (secrets, API keys, members, the
// organization, a plan's entitlement names), and its id alone once the
// record is gone. f's outbox is driven by hand (no dispatcher).
func testPayloads(t *testing.T, f *fixture) {
	if _, err := f.db.CreateWebhook(f.ctx, f.ref(), "http://127.0.0.1:9/conformance", []string{store.EventAll}); err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	// want is, per event, the object its delivery must carry, in order.
	want := map[string][]any{}
	expect := func(event string, obj any) { want[event] = append(want[event], obj) }

	export, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "export", Name: "Export"})
	if err != nil {
		t.Fatalf("CreateEntitlement: %v", err)
	}
	syncEnt, err := f.db.CreateEntitlement(f.ctx, f.ref(), store.CreateEntitlementInput{Key: "sync", Name: "Sync"})
	if err != nil {
		t.Fatalf("CreateEntitlement: %v", err)
	}
	plan := func() *store.Plan {
		t.Helper()
		p, err := f.db.CreatePlan(f.ctx, f.ref(), store.PlanInput{Name: ptr("Shaped"), EntitlementIDs: &[]string{export.ID}})
		if err != nil {
			t.Fatalf("CreatePlan: %v", err)
		}
		return p
	}()
	readPlan := func() store.PlanSnapshot {
		t.Helper()
		p, err := f.db.FindPlan(f.ctx, f.ref(), plan.ID)
		if err != nil {
			t.Fatalf("FindPlan: %v", err)
		}
		return store.SnapshotPlan(p)
	}
	expect(store.EventPlanCreated, readPlan())
	if _, err := f.db.UpdatePlan(f.ctx, f.ref(), plan.ID, store.PlanInput{EntitlementIDs: &[]string{export.ID, syncEnt.ID}}); err != nil {
		t.Fatalf("UpdatePlan: %v", err)
	}
	expect(store.EventPlanUpdated, readPlan())
	if err := f.db.DeletePlan(f.ctx, f.ref(), plan.ID); err != nil {
		t.Fatalf("DeletePlan: %v", err)
	}
	expect(store.EventPlanDeleted, store.RefSnapshot{ID: plan.ID})

	env := f.app.Environments[0]
	secret, secretPlain, err := f.db.CreateAppSecret(f.ctx, f.ref(), store.CreateSecretInput{EnvironmentID: env.ID, Label: "ci"})
	if err != nil {
		t.Fatalf("CreateAppSecret: %v", err)
	}
	readSecret := func() store.SecretSnapshot {
		t.Helper()
		return store.SnapshotSecret(listed(t, secret.ID, func(s *store.AppSecret) string { return s.ID })(f.db.ListAppSecrets(f.ctx, f.ref())))
	}
	expect(store.EventSecretCreated, readSecret())
	if err := f.db.RevokeAppSecret(f.ctx, f.ref(), secret.ID); err != nil {
		t.Fatalf("RevokeAppSecret: %v", err)
	}
	expect(store.EventSecretRevoked, readSecret())

	key, keyPlain, err := f.db.CreateAPIKey(f.ctx, f.org.ID, "deploy")
	if err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	readKey := func() store.APIKeySnapshot {
		t.Helper()
		return store.SnapshotAPIKey(listed(t, key.ID, func(k *store.APIKey) string { return k.ID })(f.db.ListAPIKeys(f.ctx, f.org.ID)))
	}
	expect(store.EventAPIKeyCreated, readKey())
	if err := f.db.RevokeAPIKey(f.ctx, f.org.ID, key.ID); err != nil {
		t.Fatalf("RevokeAPIKey: %v", err)
	}
	expect(store.EventAPIKeyRevoked, readKey())

	m, err := f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: f.org.ID, Email: "shaped." + f.org.ID + "@conformance.test",
		Password: Password, Role: store.RoleDeveloper, FirstName: "Ada"})
	if err != nil {
		t.Fatalf("AddMember: %v", err)
	}
	expect(store.EventMemberAdded, store.SnapshotMember(listed(t, m.ID, func(lm *store.Member) string { return lm.ID })(f.db.ListMembers(f.ctx, f.org.ID))))
	if err := f.db.RemoveMember(f.ctx, f.org.ID, m.ID); err != nil {
		t.Fatalf("RemoveMember: %v", err)
	}
	expect(store.EventMemberRemoved, store.RefSnapshot{ID: m.ID})

	if _, err := f.db.UpdateOrganization(f.ctx, f.org.ID, store.OrganizationUpdate{Name: ptr("Shaped Org")}); err != nil {
		t.Fatalf("UpdateOrganization: %v", err)
	}
	org, err := f.db.FindOrganization(f.ctx, f.org.ID)
	if err != nil {
		t.Fatalf("FindOrganization: %v", err)
	}
	expect(store.EventOrganizationUpdated, store.SnapshotOrganization(org))

	// license.checked_out also names the device and the file's expiry
	// (docs/design.md §13).
	offlinePlan, offline := f.licenses(t, store.PlanInput{Name: ptr("Offline shaped"), MaxDevices: ptr(1), MaxOfflineDays: ptr(10)}, 1)
	if p, err := f.db.FindPlan(f.ctx, f.ref(), offlinePlan.ID); err != nil {
		t.Fatalf("FindPlan: %v", err)
	} else {
		expect(store.EventPlanCreated, store.SnapshotPlan(p))
	}
	mf, err := f.db.IssueMachineFile(f.ctx, f.scope(store.EnvProduction), offline[0].ID, store.LicenseMachineFileInput{Fingerprint: "shaped-air"})
	if err != nil {
		t.Fatalf("IssueMachineFile: %v", err)
	}
	lic, err := f.db.FindLicense(f.ctx, f.scope(store.EnvProduction), offline[0].ID)
	if err != nil {
		t.Fatalf("FindLicense: %v", err)
	}
	expect(store.EventLicenseCheckedOut, store.SnapshotLicense(&lic.LicenseItem, f.clock.Now()))
	devs, err := f.db.ListDevices(f.ctx, f.scope(store.EnvProduction), store.StatusFilter{})
	if err != nil {
		t.Fatalf("ListDevices: %v", err)
	}
	dev := listed(t, mf.DeviceID, func(d *store.Device) string { return d.ID })(devs.Data, nil)
	wantExtra := map[string]any{"expires_at": mf.ExpiresAt, "device": store.SnapshotDevice(dev)}
	var checkedOut map[string]json.RawMessage

	expandAll(t, f)
	jobs, err := f.be.ClaimDue(f.ctx, f.clock.Now().Add(time.Second),
		store.Claim{Owner: "payloads", Limit: 100, PerEndpoint: 100, PerApp: 100, Lease: time.Minute})
	if err != nil {
		t.Fatalf("ClaimDue: %v", err)
	}
	// Deliveries come in no promised order; the events of one type are
	// matched by the object's identity and change (revoked_at, entitlements).
	got := map[string][]json.RawMessage{}
	for _, j := range jobs {
		body := string(j.Delivery.Body)
		for _, plain := range []string{secretPlain, keyPlain, Password} {
			if strings.Contains(body, plain) {
				t.Fatalf("a %s delivery carries a plaintext credential: %s", j.Delivery.Event, body)
			}
		}
		var p struct {
			Type string                     `json:"type"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(j.Delivery.Body, &p); err != nil {
			t.Fatalf("delivery body %s: %v", body, err)
		}
		kind, _, _ := strings.Cut(p.Type, ".")
		got[p.Type] = append(got[p.Type], p.Data[kind])
		if p.Type == store.EventLicenseCheckedOut {
			checkedOut = p.Data
		}
	}
	for k, v := range wantExtra {
		if !slicesContainJSON(t, []json.RawMessage{checkedOut[k]}, v) {
			t.Errorf("license.checked_out: data.%s = %s, want %s", k, checkedOut[k], mustJSON(t, v))
		}
	}
	for event, objs := range want {
		if len(got[event]) != len(objs) {
			t.Fatalf("%s: %d deliveries, want %d", event, len(got[event]), len(objs))
		}
		for _, obj := range objs {
			if !slicesContainJSON(t, got[event], obj) {
				t.Errorf("%s: no delivery carries %s; got %s", event, mustJSON(t, obj), got[event])
			}
		}
	}
}

// listed finds the item whose id is id in a list read, failing t when the
// read failed or the list lacks it: listed(t, id, idOf)(db.ListX(…)).
func listed[T any](t *testing.T, id string, idOf func(T) string) func([]T, error) T {
	return func(list []T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("listing %s: %v", id, err)
		}
		for _, it := range list {
			if idOf(it) == id {
				return it
			}
		}
		t.Fatalf("%s not listed", id)
		var none T
		return none
	}
}

// slicesContainJSON reports whether one of objs is want as JSON, compared
// decoded (key order and spacing aside).
func slicesContainJSON(t *testing.T, objs []json.RawMessage, want any) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(mustJSON(t, want)), &w); err != nil {
		t.Fatal(err)
	}
	for _, raw := range objs {
		var g any
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("object %s: %v", raw, err)
		}
		if reflect.DeepEqual(g, w) {
			return true
		}
	}
	return false
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

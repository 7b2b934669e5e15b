package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// fakeSnapshots holds one plan and one API key and fails on devices.
type fakeSnapshots struct {
	plan *Plan
	key  *APIKey
}

func (f fakeSnapshots) LicenseItem(string) (*LicenseItem, error) { return nil, nil }
func (f fakeSnapshots) EndUser(string) (*EndUser, error)         { return nil, nil }
func (f fakeSnapshots) Device(string) (*Device, error)           { return nil, errors.New("disk") }
func (f fakeSnapshots) Plan(id string) (*Plan, error) {
	if f.plan != nil && f.plan.ID == id {
		return f.plan, nil
	}
	return nil, nil
}
func (f fakeSnapshots) Entitlement(string) (*Entitlement, error) { return nil, nil }
func (f fakeSnapshots) Application(string) (*Application, error) { return nil, nil }
func (f fakeSnapshots) Webhook(string) (*Webhook, error)         { return nil, nil }
func (f fakeSnapshots) AppSecret(string) (*AppSecret, error)     { return nil, nil }
func (f fakeSnapshots) APIKey(id string) (*APIKey, error) {
	if f.key != nil && f.key.ID == id {
		return f.key, nil
	}
	return nil, nil
}
func (f fakeSnapshots) Member(string) (*Member, error)             { return nil, nil }
func (f fakeSnapshots) Organization(string) (*Organization, error) { return nil, nil }

func TestSnapshot(t *testing.T) {
	plan := &Plan{ID: NewID(), Name: "Pro", MaxDevices: 2, Entitlements: []EntitlementRef{{ID: NewID(), Key: "export", Name: "Export"}}}
	key := &APIKey{ID: NewID(), Label: "ci", Hash: "never-shown"}
	src := fakeSnapshots{plan: plan, key: key}
	now := time.Now()
	for _, tt := range []struct {
		name   string
		target Target
		kind   string
		want   any
	}{
		{"NoTarget", Target{}, "", nil},
		{"KindWithoutID", Target{Type: "organization"}, "organization", nil},
		{"Record", Target{Type: "plan", ID: plan.ID}, "plan", SnapshotPlan(plan)},
		{"GoneIsItsID", Target{Type: "plan", ID: "gone"}, "plan", RefSnapshot{ID: "gone"}},
		{"Credential", Target{Type: "api_key", ID: key.ID}, "api_key", SnapshotAPIKey(key)},
		{"KindWithoutSnapshotIsItsID", Target{Type: "session", ID: "s1"}, "session", RefSnapshot{ID: "s1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kind, obj, err := Snapshot(tt.target, src, now)
			if err != nil || kind != tt.kind {
				t.Fatalf("Snapshot = %q, %v, %v", kind, obj, err)
			}
			if got, want := mustJSON(t, obj), mustJSON(t, tt.want); got != want {
				t.Fatalf("snapshot %s, want %s", got, want)
			}
		})
	}
	// The plan carries its entitlements' names, not their ids alone; a
	// plan without any carries an empty list, as the plan list does.
	if got, want := mustJSON(t, SnapshotPlan(plan).Entitlements), `[{"id":"`+plan.Entitlements[0].ID+`","key":"export","name":"Export"}]`; got != want {
		t.Fatalf("plan entitlements %s, want %s", got, want)
	}
	// A plan stored before re-binding existed carries the default.
	for rebind, want := range map[string]string{"": RebindMost, RebindOff: RebindOff, RebindMost: RebindMost} {
		if got := SnapshotPlan(&Plan{Rebind: rebind}).Rebind; got != want {
			t.Errorf("snapshot rebind of a plan with %q = %q, want %q", rebind, got, want)
		}
	}
	if got := mustJSON(t, SnapshotPlan(&Plan{}).Entitlements); got != "[]" {
		t.Fatalf("no entitlements = %s, want []", got)
	}
	if _, _, err := Snapshot(Target{Type: "device", ID: "d"}, src, now); err == nil {
		t.Fatal("a failed load gave no error")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

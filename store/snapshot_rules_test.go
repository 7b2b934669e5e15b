package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// fakeSnapshots holds one plan and fails on devices.
type fakeSnapshots struct{ plan *Plan }

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

func TestSnapshot(t *testing.T) {
	plan := &Plan{ID: NewID(), Name: "Pro", MaxDevices: 2}
	src := fakeSnapshots{plan: plan}
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
		{"KindWithoutSnapshotIsItsID", Target{Type: "api_key", ID: "k1"}, "api_key", RefSnapshot{ID: "k1"}},
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

package store_test

import (
	"slices"
	"testing"

	"licensectl/store"
)

func TestMatchEvent(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"license.activated", "license.activated", true},
		{"license.*", "license.activated", true},
		{"license.*", "user.login", false},
		{"*", "webhook.test", true},
		{"lic*", "license.created", false},
		{"license.created", "license.activated", false},
	}
	for _, c := range cases {
		if got := store.MatchEvent(c.pattern, c.name); got != c.want {
			t.Errorf("MatchEvent(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestCheckEventPatterns(t *testing.T) {
	cases := []struct {
		name     string
		patterns []string
		ok       bool
	}{
		{"OK", []string{"license.*", "user.login", "*"}, true},
		{"ErrValidationEmpty", nil, false},
		{"ErrValidationUnknown", []string{"license.exploded"}, false},
		{"ErrValidationUnknownFamily", []string{"refunds.*"}, false},
		{"ErrValidationBareStar", []string{".*"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := store.CheckEventPatterns(c.patterns)
			if c.ok != (err == nil) {
				t.Fatalf("err = %v", err)
			}
			if err != nil && (store.ErrorCode(err) != store.ECodeValidation || store.AsError(err).Field != "events") {
				t.Fatalf("err = %#v, want validation_failed naming events", err)
			}
		})
	}
}

func TestEventsListsDesignNames(t *testing.T) {
	all := store.Events()
	if !slices.IsSorted(all) {
		t.Fatal("Events not sorted")
	}
	for _, name := range []string{"license.created", "license.activated", "license.suspended", "license.reinstated",
		"license.revoked", "license.banned", "license.device_reset", "user.registered", "user.login", "user.login_failed",
		"user.banned", "user.disabled", "user.reinstated", "device.blocked", "device.unblocked", "session.refresh_reused",
		"runtime.replay_rejected", "webhook.test", "webhook.disabled"} {
		if !slices.Contains(all, name) {
			t.Errorf("Events() lacks %s", name)
		}
	}
	for _, family := range []string{"application.*", "plan.*", "entitlement.*", "secret.*", "api_key.*", "member.*", "webhook.*"} {
		if err := store.CheckEventPatterns([]string{family}); err != nil {
			t.Errorf("family %s: %v", family, err)
		}
	}
}

package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestListLookups finds licenses, users and devices the way a support person
// names them: the key read out, the customer's e-mail, a device fingerprint.
func TestListLookups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	planA := f.newPlan(t, map[string]any{"name": "A"})
	planB := f.newPlan(t, map[string]any{"name": "B"})
	lics := generate(t, f, map[string]any{"plan_id": planA, "quantity": 3})
	other := generate(t, f, map[string]any{"plan_id": planB})[0]
	bob := seedUser(t, f, "production", "bob@example.com")
	seedUser(t, f, "production", "carol@example.com")
	devDev := seedDevice(t, f, "development", "fp-dev")
	laptop := seedDevice(t, f, "production", "fp-laptop")
	desk := seedDevice(t, f, "production", "fp-desk")
	for _, b := range []struct{ lic, dev string }{{lics[0]["id"].(string), laptop.ID}, {other["id"].(string), desk.ID}} {
		if _, err := f.s.Store().SeedBinding(ctx, f.scope("production"), b.lic, b.dev, bob.ID); err != nil {
			t.Fatal(err)
		}
	}
	f.do(t, "PATCH", "/licenses/"+other["id"].(string), map[string]any{"status": "suspended"}).Want(t, http.StatusOK)
	f.do(t, "PATCH", "/devices/"+desk.ID, map[string]any{"status": "blocked"}).Want(t, http.StatusOK)

	key := lics[1]["key"].(string)
	spoken := strings.ToLower(strings.ReplaceAll(key, "-", " ")) // "7kq2m abcde …", as read out
	spoken = strings.NewReplacer("0", "o", "1", "l").Replace(spoken)
	ids := func(p page) []any {
		out := []any{}
		for _, d := range p.Data {
			out = append(out, d["id"])
		}
		return out
	}
	tests := []struct {
		name, path string
		want       []any
		total      int
	}{
		{"OK/key as printed", "/licenses?key=" + key, []any{lics[1]["id"]}, 1},
		{"OK/key as read out", "/licenses?key=" + url.QueryEscape(spoken), []any{lics[1]["id"]}, 1},
		{"OK/key and matching status", "/licenses?status=inactive&key=" + key, []any{lics[1]["id"]}, 1},
		{"OK/key and other status", "/licenses?status=active&key=" + key, []any{}, 0},
		{"OK/key and other plan", "/licenses?plan_id=" + planB + "&key=" + key, []any{}, 0},
		{"OK/key unknown", "/licenses?key=AAAAA-AAAAA-AAAAA-AAAAA-AAAAA", []any{}, 0},
		{"OK/key malformed", "/licenses?key=not-a-key", []any{}, 0},
		{"OK/user e-mail newest first", "/licenses?user_email=BOB@example.com", []any{other["id"], lics[0]["id"]}, 2},
		{"OK/user e-mail paged", "/licenses?user_email=bob@example.com&per_page=1&page=2", []any{lics[0]["id"]}, 2},
		{"OK/user e-mail and status", "/licenses?user_email=bob@example.com&status=suspended", []any{other["id"]}, 1},
		{"OK/user id", "/licenses?user_id=" + bob.ID + "&plan_id=" + planA, []any{lics[0]["id"]}, 1},
		{"OK/user without licenses", "/licenses?user_email=carol@example.com", []any{}, 0},
		{"OK/user unknown", "/licenses?user_email=nobody@example.com", []any{}, 0},
		{"OK/key of another user", "/licenses?user_email=carol@example.com&key=" + lics[0]["key"].(string), []any{}, 0},
		{"OK/user by e-mail", "/users?email=%20Bob@Example.com", []any{bob.ID}, 1},
		{"OK/user by e-mail and other status", "/users?status=banned&email=bob@example.com", []any{}, 0},
		{"OK/user unknown e-mail", "/users?email=nobody@example.com", []any{}, 0},
		{"OK/device by fingerprint", "/devices?fingerprint=fp-laptop", []any{laptop.ID}, 1},
		{"OK/device by fingerprint and status", "/devices?status=blocked&fingerprint=fp-desk", []any{desk.ID}, 1},
		{"OK/device of another environment", "/devices?fingerprint=" + devDev.Fingerprint, []any{}, 0},
		{"OK/page past the one item", "/devices?fingerprint=fp-laptop&page=2", []any{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := getPage(t, f, tt.path)
			if got := ids(p); p.Total != tt.total || len(got) != len(tt.want) || (len(got) > 0 && !equalAny(got, tt.want)) {
				t.Fatalf("GET %s: total %d, ids %v; want total %d, ids %v", tt.path, p.Total, got, tt.total, tt.want)
			}
		})
	}

	t.Run("ErrValidation", func(t *testing.T) {
		for _, path := range []string{
			"/licenses?user_id=nope",
			"/licenses?key=" + strings.Repeat("A", 201),
			"/users?fingerprint=fp-laptop",
			"/devices?email=bob@example.com",
			"/devices?fingerprint=" + strings.Repeat("f", 1025),
		} {
			f.do(t, "GET", path, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})
}

func equalAny(a, b []any) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

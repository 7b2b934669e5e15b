package server_test

import (
	"net/http"
	"testing"

	"licensectl/server/servertest"
)

// Issue 19 #8, docs/design.md §8: a name made only of fillers, blanks or format
// characters is refused with 400 validation_failed naming the field, and
// nothing is created.
func TestBlankNamesRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	app := "/v1/mgmt/applications/" + f.app
	for _, v := range []struct{ name, text string }{
		{"HangulFiller", "\u3164"},
		{"BrailleBlank", "\u2800\u2800"},
		{"FormatCharacters", "\u200b\u2060\ufeff"},
		{"FillersAndSpaces", " \u3164\u3000\u115f "},
	} {
		for _, c := range []struct {
			name, method, path, field string
			body                      map[string]any
		}{
			{"ApplicationCreate", "POST", "/v1/mgmt/applications", "name", map[string]any{"name": v.text, "slug": "blank-app"}},
			{"ApplicationRename", "PATCH", app, "name", map[string]any{"name": v.text}},
			{"OrganizationRename", "PATCH", "/v1/mgmt/organizations/me", "name", map[string]any{"name": v.text}},
			{"PlanCreate", "POST", app + "/plans", "name", map[string]any{"name": v.text}},
			{"EntitlementCreate", "POST", app + "/entitlements", "name", map[string]any{"key": "blank", "name": v.text}},
			{"APIKeyLabel", "POST", "/v1/mgmt/api-keys", "label", map[string]any{"label": v.text}},
			{"MemberFirstName", "POST", "/v1/mgmt/organizations/members", "first_name", map[string]any{"email": "blank@example.com", "password": servertest.Password, "role": "viewer", "first_name": v.text}},
		} {
			t.Run(v.name+"/ErrValidationFailed/"+c.name, func(t *testing.T) {
				wantFieldError(t, f.s.As(t, f.key, c.method, c.path, c.body), c.field)
			})
		}
		t.Run(v.name+"/ErrValidationFailed/SignupOrganization", func(t *testing.T) {
			body := signupBody(newAddress("blank"))
			body["organization_name"] = v.text
			wantFieldError(t, f.s.Do(t, "POST", "/v1/mgmt/auth/signup", body), "organization_name")
		})
	}
	// Nothing was created by the refused requests.
	for path, want := range map[string]int{"/v1/mgmt/applications": 1, app + "/plans": 0, app + "/entitlements": 0} {
		if l := f.s.As(t, f.key, "GET", path, nil).Want(t, http.StatusOK).List(t); len(l) != want {
			t.Fatalf("%s holds %d items after refused creations, want %d: %v", path, len(l), want, l)
		}
	}
	// A name with something to show beside a filler is a name.
	f.s.As(t, f.key, "PATCH", app, map[string]any{"name": "\u3164Photo"}).Want(t, http.StatusOK)
}

package server_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"licensectl/config"
)

// partnerOnly is served only with partner sign-in configured;
// partner_test.go sends it an unknown field.
const partnerOnly = "POST /v1/mgmt/auth/partner/complete-profile"

// TestEveryBodyIsStrict sends one unknown field to every operation of the
// served OpenAPI document that declares a JSON request body (docs/design.md §7: an unknown
// field is validation_failed naming it, and nothing changes).
func TestEveryBodyIsStrict(t *testing.T) {
	t.Parallel()
	const secret = "pix-callback-secret"
	f := newRT(t, func(c *config.Config) { c.Billing.Pix.CallbackSecret = secret })
	s := f.s
	owner := s.OwnerToken(t, f.org)
	var plan struct {
		ID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Strict"}).Want(t, http.StatusCreated).JSON(t, &plan)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	s.Do(t, "GET", "/v1/openapi.json", nil).Want(t, http.StatusOK).JSON(t, &doc)
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fill := strings.NewReplacer("{id}", f.appID, "{planId}", plan.ID)
	const body = `{"zz_unknown_field": 1}`
	checked := 0
	for _, p := range paths {
		for method, o := range doc.Paths[p] {
			method = strings.ToUpper(method)
			op := method + " " + p
			if o.RequestBody == nil || o.RequestBody.Content["application/json"] == nil || op == partnerOnly {
				continue
			}
			var hdr []string
			switch {
			case strings.HasPrefix(p, "/v1/runtime/"):
				hdr = []string{"x-api-key", f.pub}
			case strings.HasPrefix(p, "/v1/mgmt/"):
				hdr = []string{"Authorization", "Bearer " + owner}
			case strings.HasPrefix(p, "/v1/admin/"):
				hdr = []string{"Authorization", "Bearer " + s.OperatorToken()}
			case p == "/v1/billing/pix/callback":
				mac := hmac.New(sha256.New, []byte(secret))
				mac.Write([]byte(body))
				hdr = []string{"x-signature", "sha256=" + hex.EncodeToString(mac.Sum(nil))}
			}
			res := s.Do(t, method, fill.Replace(p), body, hdr...)
			var e struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal(res.Body, &e)
			if res.Status != http.StatusBadRequest || e.Error.Code != "validation_failed" || !strings.Contains(e.Error.Message, "zz_unknown_field") {
				t.Errorf("%s with an unknown field: %d %s, want 400 validation_failed naming it", op, res.Status, res.Body)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d operations with a body checked", checked)
	}

	// Nothing changes: a typo beside a real field leaves the plan as it was.
	f.mgmt(t, "PATCH", "/plans/"+plan.ID, map[string]any{"name": "Renamed", "max_device": 5}).WantError(t, http.StatusBadRequest, "validation_failed")
	var got struct{ Name string }
	f.mgmt(t, "GET", "/plans/"+plan.ID, nil).Want(t, http.StatusOK).JSON(t, &got)
	if got.Name != "Strict" {
		t.Fatalf("plan name after a refused PATCH = %q", got.Name)
	}
}

// TestBodyMustBeAnObject: null and other non-objects are invalid_json on
// the management and the runtime API alike, and change nothing.
func TestBodyMustBeAnObject(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	for _, body := range []string{`null`, ` null `, `[]`, `"x"`, `5`, `true`, `{} {}`, `{}x`} {
		f.mgmt(t, "PATCH", "", body).WantError(t, http.StatusBadRequest, "invalid_json")
		f.do(t, "POST", "/sessions/validate", body).WantError(t, http.StatusBadRequest, "invalid_json")
		f.do(t, "POST", "/licenses/activate", body).WantError(t, http.StatusBadRequest, "invalid_json")
	}
	var app struct{ Name string }
	f.mgmt(t, "GET", "", nil).Want(t, http.StatusOK).JSON(t, &app)
	if app.Name != "Runtime App" {
		t.Fatalf("application name = %q", app.Name)
	}
}

// TestMethodNotAllowedCarriesAllow: a 405 names the methods the path serves.
func TestMethodNotAllowedCarriesAllow(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	lic := f.license(t, planOpts{})
	cases := []struct{ method, path, allow string }{
		{"PUT", "/v1/mgmt/applications", "GET, POST"},
		{"DELETE", "/v1/mgmt/applications/" + f.appID + "/licenses/" + f.ids[lic], "GET, PATCH"},
		{"GET", "/v1/runtime/applications/init", "POST"},
		{"GET", "/v1/mgmt/auth/signup", "POST"},
	}
	for _, c := range cases {
		res := f.s.As(t, f.org.APIKey, c.method, c.path, nil, "x-api-key", f.pub)
		res.WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
		if got := res.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow = %q, want %q", c.method, c.path, got, c.allow)
		}
	}
}

// TestRuntimeCredentialBeforeBody: without an application credential the
// runtime answers invalid_application whatever the body holds.
func TestRuntimeCredentialBeforeBody(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	for _, path := range []string{"/licenses/activate", "/auth/login", "/auth/register", "/sessions/validate", "/sessions/refresh", "/devices/reset", "/auth/logout"} {
		for _, body := range []string{`{"zz": 1}`, `null`, `{`} {
			f.s.Do(t, "POST", "/v1/runtime"+path, body).WantError(t, http.StatusUnauthorized, "invalid_application")
		}
	}
}

package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"licensectl/server/servertest"
)

// snapshot reads everything an organization's management API shows, so a
// refused request can be shown to have changed nothing at all.
func (f *rtFix) snapshot(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range []string{"/v1/mgmt/applications", "/v1/mgmt/api-keys", "/v1/mgmt/organizations/me", "/v1/mgmt/organizations/members"} {
		b.Write(f.s.As(t, f.org.APIKey, "GET", p, nil).Want(t, http.StatusOK).Body)
	}
	for _, p := range []string{"", "/entitlements", "/plans", "/secrets", "/licenses", "/devices", "/users", "/audit-logs?per_page=100"} {
		b.Write(f.mgmt(t, "GET", p, nil).Want(t, http.StatusOK).Body)
	}
	return b.Bytes()
}

// TestInputRulesRefuseAndChangeNothing drives docs/design.md §8 and §6's input
// rules through HTTP: each bad field is 400 validation_failed with a
// message naming it, and the organization reads exactly as before.
func TestInputRulesRefuseAndChangeNothing(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{})
	var plan struct {
		ID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Base"}).Want(t, http.StatusCreated).JSON(t, &plan)
	var app struct {
		Environments []struct {
			ID string `json:"id"`
		} `json:"environments"`
	}
	f.mgmt(t, "GET", "", nil).Want(t, http.StatusOK).JSON(t, &app)
	envID := app.Environments[0].ID

	const esc = "\x1b]0;owned\x07\x1b[2J" // retitles the terminal and clears the screen
	const rlo = "txt.\u202eexe"           // reads as "txt.exe" backwards
	app2 := "/v1/mgmt/applications/" + f.appID
	for _, tt := range []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"ApplicationNameEscape", "POST", "/v1/mgmt/applications", map[string]any{"name": "App" + esc}, "name"},
		{"ApplicationNameBidi", "PATCH", app2, map[string]any{"name": rlo}, "name"},
		{"ApplicationNameTooLong", "PATCH", app2, map[string]any{"name": strings.Repeat("a", 101)}, "name"},
		{"ApplicationSlugEscape", "POST", "/v1/mgmt/applications", map[string]any{"name": "Fine", "slug": "fine\x1b"}, "slug"},
		{"OrganizationNameC1", "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": "Org\u009b2J"}, "name"},
		{"APIKeyLabel", "POST", "/v1/mgmt/api-keys", map[string]any{"label": "ci" + esc}, "label"},
		{"SecretLabel", "POST", app2 + "/secrets", map[string]any{"environment_id": envID, "label": "a\u2066b"}, "label"},
		{"EntitlementKey", "POST", app2 + "/entitlements", map[string]any{"key": "pro\u202e", "name": "Pro"}, "key"},
		{"EntitlementName", "POST", app2 + "/entitlements", map[string]any{"key": "pro2", "name": "Pro\x00"}, "name"},
		{"EntitlementDescription", "POST", app2 + "/entitlements", map[string]any{"key": "pro3", "name": "Pro", "description": "x" + esc}, "description"},
		{"MemberFirstName", "POST", "/v1/mgmt/organizations/members", map[string]any{"email": "m1@example.com", "password": servertest.Password, "role": "viewer", "first_name": "M" + esc}, "first_name"},
		{"PlanName", "POST", app2 + "/plans", map[string]any{"name": "Gold" + esc}, "name"},
		{"PlanExternalID", "PATCH", app2 + "/plans/" + plan.ID, map[string]any{"external_product_id": "sku\n1"}, "external_product_id"},
		{"PlanDurationOverflow", "POST", app2 + "/plans", map[string]any{"name": "Long", "duration_days": 106752}, "duration_days"},
		{"PlanDurationAboveBound", "PATCH", app2 + "/plans/" + plan.ID, map[string]any{"name": "Renamed", "duration_days": 36501}, "duration_days"},
		{"PlanDurationBeyondInt64", "POST", app2 + "/plans", map[string]any{"name": "Huge", "duration_days": json.Number("99999999999999999999")}, "duration_days"},
		{"PlanMaxDevicesBeyondInt64", "PATCH", app2 + "/plans/" + plan.ID, map[string]any{"max_devices": json.Number("-99999999999999999999")}, "max_devices"},
		{"PlanDurationZero", "POST", app2 + "/plans", map[string]any{"name": "Zero", "duration_days": 0}, "duration_days"},
		{"PlanMaxDevicesAboveBound", "POST", app2 + "/plans", map[string]any{"name": "Many", "max_devices": 1000001}, "max_devices"},
		{"PlanResetLimitAboveBound", "PATCH", app2 + "/plans/" + plan.ID, map[string]any{"device_reset_limit": 10001}, "device_reset_limit"},
		{"PlanResetLimitNegative", "POST", app2 + "/plans", map[string]any{"name": "Neg", "device_reset_limit": -1}, "device_reset_limit"},
	} {
		t.Run("ErrValidationFailed/"+tt.name, func(t *testing.T) {
			before := f.snapshot(t)
			wantFieldError(t, f.s.As(t, f.org.APIKey, tt.method, tt.path, tt.body), tt.field)
			if after := f.snapshot(t); !bytes.Equal(before, after) {
				t.Fatalf("a refused request changed the organization:\nbefore %s\nafter  %s", before, after)
			}
		})
	}

	for _, tt := range []struct {
		name, path string
		body       map[string]any
		field      string
	}{
		{"ActivateFingerprintEscape", "/licenses/activate", f.activateBody(key, "fp"+esc), "device_fingerprint"},
		{"ActivateFingerprintBidi", "/licenses/activate", f.activateBody(key, rlo), "device_fingerprint"},
		{"ActivateFingerprintTooLong", "/licenses/activate", f.activateBody(key, strings.Repeat("f", 257)), "device_fingerprint"},
		{"ActivateKeyEscape", "/licenses/activate", f.activateBody(key+esc, "fp"), "license_key"},
		{"ResetFingerprintEscape", "/devices/reset", map[string]any{"license_key": key, "device_fingerprint": "fp" + esc}, "device_fingerprint"},
		{"RegisterEmailEscape", "/auth/register", map[string]any{"email": "a\x1b@example.com", "password": servertest.Password}, "email"},
	} {
		t.Run("ErrValidationFailed/"+tt.name, func(t *testing.T) {
			before := f.snapshot(t)
			wantFieldError(t, f.do(t, "POST", tt.path, tt.body), tt.field)
			if after := f.snapshot(t); !bytes.Equal(before, after) {
				t.Fatalf("a refused request changed the organization:\nbefore %s\nafter  %s", before, after)
			}
		})
	}

	t.Run("OK/BoundsAccepted", func(t *testing.T) {
		f.mgmt(t, "PATCH", "/plans/"+plan.ID, map[string]any{"duration_days": 36500, "max_devices": 1000000, "device_reset_limit": 10000}).Want(t, http.StatusOK)
		k := f.licenses(t, 1, planOpts{durationDays: ptrInt(36500)})[0]
		s := f.activate(t, k, "fp-bounds")
		if s.License.Status != "active" || s.License.ExpiresAt == nil {
			t.Fatalf("a license of a 36,500-day plan = %+v", s.License)
		}
		f.activate(t, f.license(t, planOpts{}), "fp-unicode-日本-🚀") // printable Unicode stays welcome
	})
}

func ptrInt(v int) *int { return &v }

// TestSignupTextBounds drives docs/design.md §8's signup bounds: nothing is
// created (no mail goes out) when one field is refused.
func TestSignupTextBounds(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	for _, tt := range []struct {
		name, field string
		v           any
	}{
		{"TOSTooLong", "tos_accepted_version", strings.Repeat("1", 65)},
		{"TOSMegabyte", "tos_accepted_version", strings.Repeat("1", 512<<10)},
		{"TOSControl", "tos_accepted_version", "2026\x0001"},
		{"PhoneEmpty", "phone", ""},
		{"PhoneBlank", "phone", "   "},
		{"PhoneMarkup", "phone", "<script>alert(1)</script>"},
		{"PhoneNUL", "phone", "+5511\x00999998888"},
		{"PhoneNoPlus", "phone", "5511999998888"},
		{"PhoneTooShort", "phone", "+1234567"},
		{"FirstNameEscape", "first_name", "Ada\x1b[2J"},
		{"LastNameBidi", "last_name", "Love\u202elace"},
		{"OrganizationNameTooLong", "organization_name", strings.Repeat("o", 101)},
	} {
		t.Run("ErrValidationFailed/"+tt.name, func(t *testing.T) {
			email := newAddress("bounds")
			b := signupBody(email)
			b[tt.field] = tt.v
			wantFieldError(t, s.Do(t, "POST", "/v1/mgmt/auth/signup", b), tt.field)
			if m := s.MailsTo(t, email); len(m) != 0 {
				t.Fatalf("a refused signup sent %d mails", len(m))
			}
			s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": servertest.Password}).WantError(t, http.StatusUnauthorized, "invalid_credentials")
		})
	}
	t.Run("OK/PhoneWithSeparatorsStoredCompact", func(t *testing.T) {
		email := newAddress("bounds")
		b := signupBody(email)
		b["phone"] = "+1 (415) 555-0100"
		s.Do(t, "POST", "/v1/mgmt/auth/signup", b).Want(t, http.StatusOK)
		if len(s.MailsTo(t, email)) != 1 {
			t.Fatal("no verification mail")
		}
	})
}

package server_test

import (
	"bytes"
	"net/http"
	"testing"
)

// TestTextNoStoreHolds: a NUL character, or bytes that are not UTF-8, in a
// sign-in's e-mail or in a list filter is refused as the request's fault
// (400 validation_failed naming the field) before it reaches the store, on
// PostgreSQL (whose text holds neither) as on bbolt, and changes nothing.
// LICENSECTL_TEST_STORE=postgres runs it on PostgreSQL.
func TestTextNoStoreHolds(t *testing.T) {
	f := newRT(t)
	f.license(t, planOpts{})
	for _, c := range []struct {
		name, email string
	}{{"NUL", "owner\u0000@example.com"}, {"NULAlone", "\u0000"}} {
		t.Run("ErrValidationFailed/Login"+c.name, func(t *testing.T) {
			before := f.snapshot(t)
			wantFieldError(t, f.s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": c.email, "password": "whatever it is"}), "email")
			if after := f.snapshot(t); !bytes.Equal(before, after) {
				t.Fatalf("a refused sign-in changed the organization:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	app := "/v1/mgmt/applications/" + f.appID
	for _, c := range []struct {
		name, path, field string
	}{
		{"LicensesUserEmail", app + "/licenses?user_email=a%00@example.com", "user_email"},
		{"LicensesKey", app + "/licenses?key=K%00", "key"},
		{"UsersEmail", app + "/users?email=%00", "email"},
		{"DevicesFingerprint", app + "/devices?fingerprint=fp%00", "fingerprint"},
		{"AppAuditEvent", app + "/audit-logs?event=license.created%00", "event"},
		{"AppAuditTargetID", app + "/audit-logs?target_id=%00", "target_id"},
		{"OrgAuditEvent", "/v1/mgmt/audit-logs?event=%00", "event"},
		{"OrgAuditTargetID", "/v1/mgmt/audit-logs?target_id=x%00y", "target_id"},
		{"LicensesUserEmailNotUTF8", app + "/licenses?user_email=a%FF@example.com", "user_email"},
		{"DevicesFingerprintNotUTF8", app + "/devices?fingerprint=%C3%28", "fingerprint"},
		{"OrgAuditEventNotUTF8", "/v1/mgmt/audit-logs?event=%FE", "event"},
	} {
		t.Run("ErrValidationFailed/"+c.name, func(t *testing.T) {
			wantFieldError(t, f.s.As(t, f.org.APIKey, "GET", c.path, nil), c.field)
		})
	}
	t.Run("OK/ListsStillFilter", func(t *testing.T) {
		for _, p := range []string{app + "/licenses?user_email=a@example.com", app + "/devices?fingerprint=fp", app + "/audit-logs?event=license.created", "/v1/mgmt/audit-logs?target_id=x"} {
			f.s.As(t, f.org.APIKey, "GET", p, nil).Want(t, http.StatusOK)
		}
	})
}

package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
)

// TestRunAgainstServer runs the example against a real server seeded through
// the management API, as a vendor would set it up.
func TestRunAgainstServer(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	mgmt := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		return s.As(t, org.APIKey, method, path, body).Want(t, want).Map(t)
	}
	appID := mgmt(http.MethodPost, "/v1/mgmt/applications", map[string]any{"name": "Photo Editor"}, http.StatusCreated)["application_id"].(string)
	entID := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/entitlements", map[string]any{"key": "export.pdf", "name": "Export to PDF"}, http.StatusCreated)["entitlement_id"].(string)
	planID := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/plans", map[string]any{"name": "Pro", "max_devices": 2, "entitlement_ids": []string{entID}}, http.StatusCreated)["plan_id"].(string)
	gen := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/licenses", map[string]any{"plan_id": planID, "quantity": 1}, http.StatusCreated)
	key := gen["licenses"].([]any)[0].(map[string]any)["key"].(string)
	var pub string
	for _, e := range mgmt(http.MethodGet, "/v1/mgmt/applications/"+appID, nil, http.StatusOK)["environments"].([]any) {
		if env := e.(map[string]any); env["name"] == "production" {
			pub = env["public_key"].(string)
		}
	}

	var out strings.Builder
	cfg := Config{Server: s.URL, PublicKey: pub, License: key, Fingerprint: "test-device-1", Entitlement: "export.pdf", Issuer: s.Config.Runtime.Issuer}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Run(ctx, cfg, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`application "Photo Editor" (production)`,
		"activated: license active, entitlements [export.pdf]",
		"verified offline: entitlements [export.pdf]",
		"validated: valid",
		"entitlement export.pdf: granted=true",
		"refreshed: access token valid until",
		"logged out",
		"device reset: 2 resets left",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	t.Run("ErrNotFound", func(t *testing.T) {
		cfg := cfg
		cfg.License = "AAAAA-AAAAA-AAAAA-AAAAA-AAAAA"
		var apiErr *APIError
		if err := Run(ctx, cfg, &strings.Builder{}); !errors.As(err, &apiErr) || apiErr.Code != "not_found" || apiErr.Status != http.StatusNotFound {
			t.Fatalf("Run with an unknown key = %v, want a 404 not_found APIError", err)
		}
	})
}

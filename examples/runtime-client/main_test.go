package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"licensectl.dev/sdk/go"

	"licensectl/server/servertest"
)

// TestRunAgainstServer runs the example against a real server seeded through
// the management API, as a vendor would set it up: without -reset it spends
// no device reset; with it, one.
func TestRunAgainstServer(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	mgmt := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		return s.As(t, org.APIKey, method, path, body).Want(t, want).Map(t)
	}
	appID := mgmt(http.MethodPost, "/v1/mgmt/applications", map[string]any{"name": "Photo Editor"}, http.StatusCreated)["application_id"].(string)
	entID := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/entitlements", map[string]any{"key": "export.pdf", "name": "Export to PDF"}, http.StatusCreated)["entitlement_id"].(string)
	planID := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/plans", map[string]any{"name": "Pro", "max_devices": 2, "device_reset_limit": 3, "entitlement_ids": []string{entID}}, http.StatusCreated)["plan_id"].(string)
	gen := mgmt(http.MethodPost, "/v1/mgmt/applications/"+appID+"/licenses", map[string]any{"plan_id": planID, "quantity": 1}, http.StatusCreated)
	lic := gen["licenses"].([]any)[0].(map[string]any)
	key, licID := lic["key"].(string), lic["id"].(string)
	var pub string
	for _, e := range mgmt(http.MethodGet, "/v1/mgmt/applications/"+appID, nil, http.StatusOK)["environments"].([]any) {
		if env := e.(map[string]any); env["name"] == "production" {
			pub = env["public_key"].(string)
		}
	}
	resp, err := http.Get(s.URL + "/v1/runtime/applications/" + appID + "/jwks.json?environment=production")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	remaining := func() float64 {
		return mgmt(http.MethodGet, "/v1/mgmt/applications/"+appID+"/licenses/"+licID, nil, http.StatusOK)["device_resets_remaining"].(float64)
	}
	cfg := Config{Server: s.URL, PublicKey: pub, JWKS: jwks, StateDir: filepath.Join(t.TempDir(), "state"), License: key, Fingerprint: "test-device-1", Entitlement: "export.pdf", Logout: true}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var out strings.Builder
	if err := Run(ctx, cfg, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"activated", "validated: valid, entitlements [export.pdf]", "entitlement export.pdf: granted=true", "logged out"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "device reset") || remaining() != 3 {
		t.Fatalf("a reset was spent without -reset (%v left):\n%s", remaining(), out.String())
	}

	cfg.Reset = true
	out.Reset()
	if err := Run(ctx, cfg, &out); err != nil {
		t.Fatalf("Run -reset: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "device reset: 2 resets left") || remaining() != 2 {
		t.Fatalf("-reset: %v left:\n%s", remaining(), out.String())
	}

	cfg.License = "AAAAA-AAAAA-AAAAA-AAAAA-AAAAA"
	var apiErr *licensing.Error
	if err := Run(ctx, cfg, &strings.Builder{}); !errors.As(err, &apiErr) || apiErr.Code != "not_found" || apiErr.Status != http.StatusNotFound {
		t.Fatalf("Run with an unknown key = %v, want a 404 not_found licensing.Error", err)
	}
}

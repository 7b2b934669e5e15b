package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

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
	pubs := map[string]string{}
	for _, e := range mgmt(http.MethodGet, "/v1/mgmt/applications/"+appID, nil, http.StatusOK)["environments"].([]any) {
		env := e.(map[string]any)
		pubs[env["name"].(string)] = env["public_key"].(string)
	}
	pub := pubs["production"]

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
		"machine file verified offline: entitlements [export.pdf]",
		"refreshed: access token valid until",
		"logged out",
		"device reset: 2 resets left",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// A development key with a license of the development environment.
	devGen := s.As(t, org.APIKey, http.MethodPost, "/v1/mgmt/applications/"+appID+"/licenses", map[string]any{"plan_id": planID, "quantity": 2},
		"x-environment", "development").Want(t, http.StatusCreated).Map(t)
	devKey := func(i int) string { return devGen["licenses"].([]any)[i].(map[string]any)["key"].(string) }

	t.Run("OKDevelopmentBuild", func(t *testing.T) {
		cfg := cfg
		cfg.PublicKey, cfg.License, cfg.Environment = pubs["development"], devKey(0), "development"
		var out strings.Builder
		if err := Run(ctx, cfg, &out); err != nil {
			t.Fatalf("Run: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), `(development)`) || !strings.Contains(out.String(), "verified offline") {
			t.Fatalf("output:\n%s", out.String())
		}
	})

	t.Run("ErrDevelopmentTokenInProductionBuild", func(t *testing.T) {
		cfg := cfg
		cfg.PublicKey, cfg.License, cfg.Environment = pubs["development"], devKey(1), "production"
		var out strings.Builder
		err := Run(ctx, cfg, &out)
		if err == nil || !strings.Contains(err.Error(), "offline verification") {
			t.Fatalf("Run = %v, want an offline verification failure\n%s", err, out.String())
		}
		if strings.Contains(out.String(), "verified offline") {
			t.Fatalf("the development token passed:\n%s", out.String())
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		cfg := cfg
		cfg.License = "AAAAA-AAAAA-AAAAA-AAAAA-AAAAA"
		var apiErr *APIError
		if err := Run(ctx, cfg, &strings.Builder{}); !errors.As(err, &apiErr) || apiErr.Code != "not_found" || apiErr.Status != http.StatusNotFound {
			t.Fatalf("Run with an unknown key = %v, want a 404 not_found APIError", err)
		}
	})
}

// TestVerifyOfflineChecksEnv: the env claim is checked on its own, so a
// development token is refused by a production build even when its key is
// in the set the build holds.
func TestVerifyOfflineChecksEnv(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(env string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"aud": "app-1", "iss": "licensectl", "env": env, "exp": time.Now().Add(time.Minute).Unix()})
		tok.Header["typ"], tok.Header["kid"] = "at+jwt", "k1"
		s, err := tok.SignedString(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	keys := map[string]ed25519.PublicKey{"k1": pub}
	if _, err := verifyOffline(sign("production"), keys, "app-1", "licensectl", "production"); err != nil {
		t.Fatalf("production token in a production build: %v", err)
	}
	if _, err := verifyOffline(sign("development"), keys, "app-1", "licensectl", "production"); err == nil {
		t.Fatal("development token verified in a production build")
	}
	if _, err := verifyOffline(sign("development"), keys, "app-1", "licensectl", "development"); err != nil {
		t.Fatalf("development token in a development build: %v", err)
	}
}

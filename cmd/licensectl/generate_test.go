package main

import (
	"encoding/json"
	"licensectl/server/api"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/store"
)

// TestGeneratePartialFailure checks that when a later call of a split
// generation fails, the keys already made are printed and the error says so.
func TestGeneratePartialFailure(t *testing.T) {
	t.Parallel()
	appID, planID := store.NewID(), store.NewID()
	var calls atomic.Int32
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/mgmt/applications/"+appID+"/plans":
			json.NewEncoder(w).Encode([]api.PlanItem{{ID: planID, Name: "Pro", Entitlements: []api.EntitlementRef{}}})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/mgmt/applications/"+appID+"/licenses":
			if calls.Add(1) > 1 {
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"error":{"code":"rate_limited","message":"too many requests","title":"","reason":"","action":"","retry_after_seconds":30}}`))
				return
			}
			var req api.GenerateLicensesRequest
			json.NewDecoder(r.Body).Decode(&req)
			out := api.LicensesGenerated{}
			for range *req.Quantity {
				out.Licenses = append(out.Licenses, api.LicenseItem{ID: store.NewID(), Key: store.NewLicenseKey(), Status: "inactive",
					Plan: api.PlanRef{ID: planID, Name: "Pro"}, CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()})
			}
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(out)
		default:
			http.NotFound(w, r)
		}
	}))
	defer h.Close()

	c := newRemote(t, h.URL, "dev_key_x")
	r := c.run("license", "generate", "--app", appID, "--plan", "Pro", "-n", "2500", "-o", "keys")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	wantKeys(t, r.stdout, 1000)
	for _, want := range []string{"generated 1000/2500 licenses", "Error: generated 1000 of 2500 licenses (printed above), then: rate_limited: too many requests"} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("%d generate calls, want 2 (stop at the first failure)", calls.Load())
	}
}

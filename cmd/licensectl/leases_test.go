package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/api"
	"licensectl/server/servertest"
)

// TestRemoteLeasesAndHistory: against a server, lease list and lease free
// act on the seats the runtime API checked out, and audit list --license,
// --device and --user resolve their records through the API.
func TestRemoteLeasesAndHistory(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	org := srv.NewOrg(t)
	c := newRemote(t, srv.URL, org.APIKey)
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Seats", "--slug", "seats")
	c.ok("plan", "create", "--app", "seats", "Team", "--max-devices", "2", "--max-concurrent", "1", "--lease", "15m")
	key := strings.TrimSpace(c.ok("license", "generate", "--app", "seats", "--plan", "Team", "-n", "1", "-o", "keys"))

	stamp := func(nonce string) (string, string) {
		return srv.Clock().Now().UTC().Format(time.RFC3339), fmt.Sprintf("remote-lease-nonce-%s", nonce)
	}
	ts, nonce := stamp("activate")
	var act struct {
		AccessToken string `json:"access_token"`
	}
	srv.Do(t, http.MethodPost, "/v1/runtime/licenses/activate", map[string]string{"license_key": key, "device_fingerprint": "fp-remote-seat", "timestamp": ts, "nonce": nonce},
		"x-application-id", app.ID).Want(t, http.StatusOK).JSON(t, &act)
	ts, nonce = stamp("lease")
	var lease struct {
		LeaseID string `json:"lease_id"`
	}
	srv.Do(t, http.MethodPost, "/v1/runtime/leases", map[string]string{"timestamp": ts, "nonce": nonce},
		"x-application-id", app.ID, "Authorization", "Bearer "+act.AccessToken).Want(t, http.StatusCreated).JSON(t, &lease)

	var leases []api.LeaseItem
	c.json(&leases, "lease", "list", "--app", "seats", key)
	if len(leases) != 1 || leases[0].ID != lease.LeaseID || leases[0].Fingerprint != "fp-remote-seat" {
		t.Fatalf("lease list = %+v, want the lease %s of fp-remote-seat", leases, lease.LeaseID)
	}
	var hist api.Page[api.AuditEntry]
	c.json(&hist, "audit", "list", "--app", "seats", "--license", key)
	for _, e := range hist.Data {
		if e.Target.Type != "license" {
			t.Fatalf("audit list --license holds %+v", e)
		}
	}
	if len(hist.Data) == 0 {
		t.Fatal("audit list --license is empty")
	}
	c.fails(1, args("audit", "list", "--app", "seats", "--user", "nobody@example.com"), `Error: not_found: no user with e-mail "nobody@example.com" in production`)

	if out := c.ok("lease", "free", "--app", "seats", key, lease.LeaseID); !strings.Contains(out, "freed lease "+lease.LeaseID) {
		t.Fatalf("lease free said %q", out)
	}
	c.json(&leases, "lease", "list", "--app", "seats", key)
	if len(leases) != 0 {
		t.Fatalf("after lease free, lease list = %+v", leases)
	}
	c.fails(1, args("lease", "free", "--app", "seats", key, lease.LeaseID), "Error: lease_not_found: ")

	c.ok("device", "set-status", "--app", "seats", "fp-remote-seat", "blocked")
	c.json(&hist, "audit", "list", "--app", "seats", "--device", "fp-remote-seat")
	if len(hist.Data) == 0 || hist.Data[0].Event != "device.blocked" {
		t.Fatalf("audit list --device = %+v", hist)
	}
}

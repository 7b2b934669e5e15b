package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestLeasesByOrganizationSlug: with the operator token, the management
// leases routes take the organization in x-organization-id by its slug as
// by its id (as the CLI's --org does); an unknown one is 404 naming what was
// tried, and another organization's slug reaches none of this one's records.
func TestLeasesByOrganizationSlug(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 2, plan: map[string]any{"max_concurrent": 1, "lease_seconds": 60}})
	a := f.activate(t, key, "slug-lease-a")
	ts, n := f.replay()
	var lease struct {
		LeaseID string `json:"lease_id"`
	}
	f.do(t, "POST", "/leases", map[string]any{"timestamp": ts, "nonce": n}, "Authorization", "Bearer "+a.AccessToken).Want(t, http.StatusCreated).JSON(t, &lease)
	var me struct {
		Slug string `json:"slug"`
	}
	f.s.As(t, f.org.APIKey, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).JSON(t, &me)
	other := f.s.NewOrg(t)
	var theirs struct {
		Slug string `json:"slug"`
	}
	f.s.As(t, other.APIKey, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).JSON(t, &theirs)
	op := f.s.OperatorToken()
	leases := "/v1/mgmt/applications/" + f.appID + "/licenses/" + f.ids[key] + "/leases"
	t.Run("OK", func(t *testing.T) {
		for _, org := range []string{f.org.ID, me.Slug} {
			list := f.s.As(t, op, "GET", leases, nil, "x-organization-id", org).Want(t, http.StatusOK).List(t)
			if len(list) != 1 || list[0]["id"] != lease.LeaseID {
				t.Fatalf("leases with x-organization-id %s = %v", org, list)
			}
		}
		f.s.As(t, op, "DELETE", leases+"/"+lease.LeaseID, nil, "x-organization-id", me.Slug).Want(t, http.StatusOK)
		if list := f.s.As(t, op, "GET", leases, nil, "x-organization-id", me.Slug).Want(t, http.StatusOK).List(t); len(list) != 0 {
			t.Fatalf("leases after freeing the seat = %v", list)
		}
		f.wantAudit(t, "license.lease_released", 1)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, org := range []string{"no-such-org", "0190c0de-0000-7000-8000-000000000000", strings.ToUpper(me.Slug)} {
			for _, method := range []string{"GET", "DELETE"} {
				path := leases
				if method == "DELETE" {
					path += "/" + lease.LeaseID
				}
				r := f.s.As(t, op, method, path, nil, "x-organization-id", org)
				r.WantError(t, http.StatusNotFound, "not_found")
				if msg := string(r.Body); !strings.Contains(msg, `\"`+org+`\"`) || !strings.Contains(msg, "x-organization-id") || !strings.Contains(msg, "slug") {
					t.Fatalf("%s with x-organization-id %s: %s; want the message to name it, the header and the slug", method, org, msg)
				}
			}
		}
		// Another organization's slug acts in that organization: this
		// one's application is not found there.
		r := f.s.As(t, op, "GET", leases, nil, "x-organization-id", theirs.Slug)
		r.WantError(t, http.StatusNotFound, "not_found")
		if !strings.Contains(string(r.Body), "application") {
			t.Fatalf("another organization's slug: %s; want the application not found", r.Body)
		}
	})
}

package server_test

import (
	"net/http"
	"testing"

	"licensectl/server/servertest"
)

// TestOrgAuditLog: GET /v1/mgmt/audit-logs lists the organization's own
// events with the page shape and filters of the application log.
func TestOrgAuditLog(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	other := s.NewOrg(t)
	var created struct {
		ID string `json:"id"`
	}
	s.As(t, org.APIKey, "POST", "/v1/mgmt/api-keys", map[string]any{"label": "ci"}).Want(t, http.StatusCreated).JSON(t, &created)
	newApp(t, s, org.APIKey, "Not in the org log")

	t.Run("OK", func(t *testing.T) {
		var p struct {
			Data    []map[string]any `json:"data"`
			Total   int              `json:"total"`
			Page    int              `json:"page"`
			PerPage int              `json:"per_page"`
		}
		s.As(t, org.APIKey, "GET", "/v1/mgmt/audit-logs", nil).Want(t, http.StatusOK).JSON(t, &p)
		events := map[string]int{}
		for _, e := range p.Data {
			servertest.WantKeys(t, e, "id", "event", "actor", "target", "ip", "user_agent", "metadata", "created_at")
			events[e["event"].(string)]++
		}
		// organization.created and two api_key.created (the fixture's and ours).
		if p.Total != len(p.Data) || events["api_key.created"] != 2 || events["organization.created"] != 1 || events["application.created"] != 0 {
			t.Fatalf("org log = %v (total %d)", events, p.Total)
		}
		s.As(t, org.APIKey, "GET", "/v1/mgmt/audit-logs?event=api_key.created&per_page=1", nil).Want(t, http.StatusOK).JSON(t, &p)
		if p.Total != 2 || len(p.Data) != 1 || p.PerPage != 1 {
			t.Fatalf("filtered = %+v", p)
		}
		s.As(t, other.APIKey, "GET", "/v1/mgmt/audit-logs?event=api_key.created", nil).Want(t, http.StatusOK).JSON(t, &p)
		if p.Total != 1 {
			t.Fatalf("another organization sees %d entries", p.Total)
		}
	})
	t.Run("ErrValidation", func(t *testing.T) {
		wantFieldError(t, s.As(t, org.APIKey, "GET", "/v1/mgmt/audit-logs?from=yesterday", nil), "from")
	})
}

package server_test

import (
	"net/http"
	"testing"

	"licensectl/config"
	"licensectl/server/servertest"
)

// auditIP creates an application with the given headers and returns the ip
// its audit entry recorded.
func auditIP(t *testing.T, s *servertest.Server, hdr ...string) string {
	t.Helper()
	org := s.NewOrg(t)
	app := newApp(t, s, org.APIKey, "IP App")
	s.As(t, org.APIKey, "PATCH", "/v1/mgmt/applications/"+app, map[string]any{"name": "IP App 2"}, hdr...).Want(t, http.StatusOK)
	var page struct {
		Data []struct {
			IP string `json:"ip"`
		} `json:"data"`
	}
	s.As(t, org.APIKey, "GET", "/v1/mgmt/applications/"+app+"/audit-logs?event=application.updated", nil).Want(t, http.StatusOK).JSON(t, &page)
	if len(page.Data) != 1 {
		t.Fatalf("audit entries = %d, want 1", len(page.Data))
	}
	return page.Data[0].IP
}

func TestClientIPThroughTrustedProxy(t *testing.T) {
	t.Parallel()
	t.Run("Trusted", func(t *testing.T) {
		s := servertest.New(t, func(c *config.Config) { c.Server.TrustedProxies = []string{"127.0.0.1/32"} })
		if got := auditIP(t, s, "X-Forwarded-For", "198.51.100.7, 203.0.113.9"); got != "203.0.113.9" {
			t.Fatalf("ip = %q, want 203.0.113.9", got)
		}
	})
	t.Run("NotTrusted", func(t *testing.T) {
		s := servertest.New(t)
		if got := auditIP(t, s, "X-Forwarded-For", "203.0.113.9"); got != "127.0.0.1" {
			t.Fatalf("ip = %q, want 127.0.0.1 (the header must be ignored)", got)
		}
	})
}

package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"licensectl/server/servertest"
)

// BenchmarkGenerateLicenses1000HTTP is one POST of quantity 1000 through the
// server's handler: decoding, one store transaction and the 1,000-item answer.
func BenchmarkGenerateLicenses1000HTTP(b *testing.B) {
	s := servertest.New(b)
	org := s.NewOrg(b)
	app := newAppB(b, s, org.APIKey)
	var plan struct {
		PlanID string `json:"plan_id"`
	}
	s.As(b, org.APIKey, "POST", "/v1/mgmt/applications/"+app+"/plans", map[string]any{"name": "Bench"}).Want(b, http.StatusCreated).JSON(b, &plan)
	body, _ := json.Marshal(map[string]any{"plan_id": plan.PlanID, "quantity": 1000})
	h := s.Handler()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/mgmt/applications/"+app+"/licenses", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+org.APIKey)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

func newAppB(b *testing.B, s *servertest.Server, key string) string {
	b.Helper()
	var out struct {
		ApplicationID string `json:"application_id"`
	}
	s.As(b, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Bench App"}).Want(b, http.StatusCreated).JSON(b, &out)
	return out.ApplicationID
}

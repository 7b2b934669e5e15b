package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"licensectl/server/servertest"
)

// TestRestartKeepsData writes through the API, restarts the server on the
// same data directory and reads everything back.
func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	app := newApp(t, s, org.APIKey, "Durable")
	var key struct {
		Plaintext string `json:"plaintext"`
	}
	s.As(t, org.APIKey, "POST", "/v1/mgmt/api-keys", map[string]any{"label": "kept"}).Want(t, http.StatusCreated).JSON(t, &key)
	before := s.As(t, org.APIKey, "GET", "/v1/mgmt/applications/"+app, nil).Want(t, http.StatusOK).Body
	token := s.OperatorToken()
	fi, err := os.Stat(filepath.Join(s.Config.DataDir, "operator.token"))
	if err != nil {
		t.Fatalf("operator token file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("operator token mode = %v, want 0600", fi.Mode().Perm())
	}

	cfg := s.Config
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s2 := servertest.Start(t, cfg)

	after := s2.As(t, key.Plaintext, "GET", "/v1/mgmt/applications/"+app, nil).Want(t, http.StatusOK).Body
	if string(before) != string(after) {
		t.Fatalf("application changed across restart:\nbefore %s\nafter  %s", before, after)
	}
	if s2.OperatorToken() != token {
		t.Fatal("operator token changed across restart")
	}
	keys := s2.As(t, org.APIKey, "GET", "/v1/mgmt/api-keys", nil).Want(t, http.StatusOK).List(t)
	if len(keys) != 2 {
		t.Fatalf("api keys after restart = %d, want 2", len(keys))
	}
}

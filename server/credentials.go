package server

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) registerCredentialRoutes(r group) {
	r.Handle("/applications/{id}/secrets", s.mgmt(permWrite, s.createSecret)).Methods(http.MethodPost)
	r.Handle("/applications/{id}/secrets", s.mgmt(permRead, s.listSecrets)).Methods(http.MethodGet)
	r.Handle("/applications/{id}/secrets/{secretId}", s.mgmt(permWrite, s.revokeSecret)).Methods(http.MethodDelete)
	r.Handle("/api-keys", s.mgmt(permAdmin, s.createAPIKey)).Methods(http.MethodPost)
	r.Handle("/api-keys", s.mgmt(permAdmin, s.listAPIKeys)).Methods(http.MethodGet)
	r.Handle("/api-keys/{keyId}", s.mgmt(permAdmin, s.revokeAPIKey)).Methods(http.MethodDelete)
}

// SecretItem is an application secret in lists; the plaintext is never listed.
type SecretItem struct {
	ID            string     `json:"id"`
	Label         string     `json:"label"`
	EnvironmentID string     `json:"environment_id"`
	LastUsedAt    *time.Time `json:"last_used_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// APIKeyItem is a developer API key in lists; the plaintext is never listed.
type APIKeyItem struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// CreateSecretRequest is the body of POST /applications/{id}/secrets.
type CreateSecretRequest struct {
	EnvironmentID string `json:"environment_id"`
	Label         string `json:"label"`
}

// SecretCreated answers secret creation; the plaintext is shown this once.
type SecretCreated struct {
	SecretID  string `json:"secret_id"`
	Plaintext string `json:"plaintext"`
}

// LabelRequest is the body of POST /api-keys.
type LabelRequest struct {
	Label string `json:"label"`
}

// APIKeyCreated answers API key creation; the plaintext is shown this once.
type APIKeyCreated struct {
	KeyID     string `json:"key_id"`
	Plaintext string `json:"plaintext"`
}

func (s *Server) createSecret(w http.ResponseWriter, r *http.Request) error {
	var req CreateSecretRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	sec, plain, err := s.db.CreateAppSecret(r.Context(), appRef(r), store.CreateSecretInput{EnvironmentID: req.EnvironmentID, Label: req.Label})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, SecretCreated{SecretID: sec.ID, Plaintext: plain})
	return nil
}

func (s *Server) listSecrets(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListAppSecrets(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, func(x *store.AppSecret) SecretItem {
		return SecretItem{ID: x.ID, Label: x.Label, EnvironmentID: x.EnvironmentID, LastUsedAt: x.LastUsedAt, RevokedAt: x.RevokedAt, CreatedAt: x.CreatedAt}
	}))
	return nil
}

func (s *Server) revokeSecret(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.RevokeAppSecret(r.Context(), appRef(r), mux.Vars(r)["secretId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, success{true})
	return nil
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req LabelRequest
	if err := decodeOptional(r, &req); err != nil {
		return err
	}
	k, plain, err := s.db.CreateAPIKey(r.Context(), principalFrom(r.Context()).OrgID, req.Label)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, APIKeyCreated{KeyID: k.ID, Plaintext: plain})
	return nil
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListAPIKeys(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, func(k *store.APIKey) APIKeyItem {
		return APIKeyItem{ID: k.ID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
	}))
	return nil
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.RevokeAPIKey(r.Context(), principalFrom(r.Context()).OrgID, mux.Vars(r)["keyId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, success{true})
	return nil
}

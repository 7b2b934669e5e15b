package server

import (
	"licensectl/server/api"
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) createSecret(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateSecretRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	sec, plain, err := s.db.CreateAppSecret(r.Context(), appRef(r), store.CreateSecretInput{EnvironmentID: req.EnvironmentID, Label: req.Label})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.SecretCreated{SecretID: sec.ID, Plaintext: plain})
	return nil
}

func (s *Server) listSecrets(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListAppSecrets(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, api.SecretItemOf))
	return nil
}

func (s *Server) revokeSecret(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.RevokeAppSecret(r.Context(), appRef(r), mux.Vars(r)["secretId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req api.LabelRequest
	if err := decodeOptional(r, &req); err != nil {
		return err
	}
	k, plain, err := s.db.CreateAPIKey(r.Context(), principalFrom(r.Context()).OrgID, req.Label)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.APIKeyCreated{KeyID: k.ID, Plaintext: plain})
	return nil
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListAPIKeys(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, api.APIKeyItemOf))
	return nil
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.RevokeAPIKey(r.Context(), principalFrom(r.Context()).OrgID, mux.Vars(r)["keyId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

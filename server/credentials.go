package server

import (
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/store"
)

func (s *Server) createSecret(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateSecretRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.inOwnEnvironment(r, req.EnvironmentID); err != nil {
		return err
	}
	sec, plain, err := s.db.CreateAppSecret(r.Context(), appRef(r), store.CreateSecretInput{EnvironmentID: req.EnvironmentID, Label: req.Label})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.SecretCreated{SecretID: sec.ID, Plaintext: plain})
	return nil
}

// inOwnEnvironment refuses an application secret's call about a secret of
// the application's other environment: a secret acts in its own (docs/design.md
// §4), so a development secret can neither mint nor revoke a production one.
// An id of no environment of the application is left to the store to refuse.
func (s *Server) inOwnEnvironment(r *http.Request, envID string) error {
	p := principalFrom(r.Context())
	if p.Kind != store.ActorAppSecret {
		return nil
	}
	a, err := s.db.FindApplication(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	if env := a.EnvByID(envID); env != nil && env.Name != p.Env {
		return store.Errorf(store.ECodeForbidden, "an application secret acts in its own environment only")
	}
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
	id := mux.Vars(r)["secretId"]
	if principalFrom(r.Context()).Kind == store.ActorAppSecret {
		list, err := s.db.ListAppSecrets(r.Context(), appRef(r))
		if err != nil {
			return err
		}
		for _, sec := range list {
			if sec.ID == id {
				if err := s.inOwnEnvironment(r, sec.EnvironmentID); err != nil {
					return err
				}
			}
		}
	}
	if err := s.db.RevokeAppSecret(r.Context(), appRef(r), id); err != nil {
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

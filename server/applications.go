package server

import (
	"licensectl/server/api"
	"net/http"

	"licensectl/store"
)

func (s *Server) listApplications(w http.ResponseWriter, r *http.Request) error {
	apps, err := s.db.ListApplications(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(apps, api.ApplicationItemOf))
	return nil
}

func (s *Server) createApplication(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateApplicationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	a, err := s.db.CreateApplication(r.Context(), store.CreateApplicationInput{OrgID: principalFrom(r.Context()).OrgID, Name: req.Name, Slug: req.Slug, SupportEmail: req.SupportEmail})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.ApplicationCreated{ApplicationID: a.ID})
	return nil
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) error {
	a, err := s.db.FindApplication(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ApplicationDetailOf(a))
	return nil
}

func (s *Server) updateApplication(w http.ResponseWriter, r *http.Request) error {
	var req api.UpdateApplicationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	a, err := s.db.UpdateApplication(r.Context(), appRef(r), store.ApplicationUpdate{Name: req.Name, Status: req.Status, SupportEmail: req.SupportEmail})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ApplicationUpdated{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, SupportEmail: a.SupportEmailOrNil(), UpdatedAt: a.UpdatedAt})
	return nil
}

func (s *Server) deleteApplication(w http.ResponseWriter, r *http.Request) error {
	permanent := r.URL.Query().Get("permanent") == "true"
	if err := s.db.DeleteApplication(r.Context(), appRef(r), permanent); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

func (s *Server) listEnvironments(w http.ResponseWriter, r *http.Request) error {
	a, err := s.db.FindApplication(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(a.Environments, func(e store.Environment) api.Environment {
		return api.Environment{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt}
	}))
	return nil
}

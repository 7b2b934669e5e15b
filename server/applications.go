package server

import (
	"net/http"
	"time"

	"licensectl/store"
)

func (s *Server) registerApplicationRoutes(r group) {
	r.Handle("/applications", s.mgmt(permOrgRead, s.listApplications)).Methods(http.MethodGet)
	r.Handle("/applications", s.mgmt(permWrite, s.createApplication)).Methods(http.MethodPost)
	r.Handle("/applications/{id}", s.mgmt(permRead, s.getApplication)).Methods(http.MethodGet)
	r.Handle("/applications/{id}", s.mgmt(permWrite, s.updateApplication)).Methods(http.MethodPatch)
	r.Handle("/applications/{id}", s.mgmt(permWrite, s.deleteApplication)).Methods(http.MethodDelete)
	r.Handle("/applications/{id}/environments", s.mgmt(permRead, s.listEnvironments)).Methods(http.MethodGet)
}

// ApplicationItem is an application in lists.
type ApplicationItem struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ApplicationDetail is the detail read of an application.
type ApplicationDetail struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Slug         string            `json:"slug"`
	Status       string            `json:"status"`
	Environments []EnvironmentItem `json:"environments"`
	CreatedAt    time.Time         `json:"created_at"`
	UpdatedAt    time.Time         `json:"updated_at"`
}

// EnvironmentItem is an environment inside an application detail.
type EnvironmentItem struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	PublicKey string    `json:"public_key"`
	CreatedAt time.Time `json:"created_at"`
}

// Environment is an item of the environments list.
type Environment struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// ApplicationUpdated answers PATCH on an application.
type ApplicationUpdated struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updated_at"`
}

func applicationItem(a *store.Application) ApplicationItem {
	return ApplicationItem{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

func applicationDetail(a *store.Application) ApplicationDetail {
	return ApplicationDetail{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		Environments: mapList(a.Environments, func(e store.Environment) EnvironmentItem {
			return EnvironmentItem{ID: e.ID, Name: e.Name, PublicKey: e.PublicKey, CreatedAt: e.CreatedAt}
		})}
}

func (s *Server) listApplications(w http.ResponseWriter, r *http.Request) error {
	apps, err := s.db.ListApplications(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(apps, applicationItem))
	return nil
}

// CreateApplicationRequest is the body of POST /applications.
type CreateApplicationRequest struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

func (s *Server) createApplication(w http.ResponseWriter, r *http.Request) error {
	var req CreateApplicationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	a, err := s.db.CreateApplication(r.Context(), store.CreateApplicationInput{OrgID: principalFrom(r.Context()).OrgID, Name: req.Name, Slug: req.Slug})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"application_id": a.ID})
	return nil
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) error {
	a, err := s.db.FindApplication(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, applicationDetail(a))
	return nil
}

// UpdateApplicationRequest is the body of PATCH /applications/{id}.
type UpdateApplicationRequest struct {
	Name   *string `json:"name"`
	Status *string `json:"status"`
}

func (s *Server) updateApplication(w http.ResponseWriter, r *http.Request) error {
	var req UpdateApplicationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	a, err := s.db.UpdateApplication(r.Context(), appRef(r), store.ApplicationUpdate{Name: req.Name, Status: req.Status})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ApplicationUpdated{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, UpdatedAt: a.UpdatedAt})
	return nil
}

func (s *Server) deleteApplication(w http.ResponseWriter, r *http.Request) error {
	permanent := r.URL.Query().Get("permanent") == "true"
	if err := s.db.DeleteApplication(r.Context(), appRef(r), permanent); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, success{true})
	return nil
}

func (s *Server) listEnvironments(w http.ResponseWriter, r *http.Request) error {
	a, err := s.db.FindApplication(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(a.Environments, func(e store.Environment) Environment {
		return Environment{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt}
	}))
	return nil
}

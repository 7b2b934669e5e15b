package server

import (
	"context"
	"licensectl/server/api"
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// statusFilter reads the filters of the end-user and device lists, page and
// per_page.
func statusFilter(r *http.Request) (store.StatusFilter, error) {
	p, err := pageRequest(r)
	q := r.URL.Query()
	return store.StatusFilter{Status: q.Get("status"), Email: q.Get("email"), Fingerprint: q.Get("fingerprint"), LicenseID: q.Get("license_id"),
		PageRequest: p}, err
}

// statusSetter sets the status of the record id in scope and returns its id
// and the status a caller now sees.
type statusSetter func(ctx context.Context, sc store.Scope, id, status string) (string, string, error)

// setStatus is the handler of the status PATCH endpoints: the record named by
// the path variable param gets the body's status, answered as {id, status}.
func setStatus(param string, set statusSetter) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := scope(r)
		if err != nil {
			return err
		}
		var req api.StatusRequest
		if err := decode(r, &req); err != nil {
			return err
		}
		id, status, err := set(r.Context(), sc, mux.Vars(r)[param], req.Status)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, api.StatusChanged{ID: id, Status: status})
		return nil
	}
}

// listByStatus is the handler of the status-filtered list endpoints.
func listByStatus[T, I any](list func(ctx context.Context, sc store.Scope, f store.StatusFilter) (*store.Page[T], error), item func(T) I) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := scope(r)
		if err != nil {
			return err
		}
		f, err := statusFilter(r)
		if err != nil {
			return err
		}
		page, err := list(r.Context(), sc, f)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, api.PageOf(page, item))
		return nil
	}
}

func (s *Server) setEndUserStatus(ctx context.Context, sc store.Scope, id, status string) (string, string, error) {
	u, err := s.db.SetEndUserStatus(ctx, sc, id, status)
	if err != nil {
		return "", "", err
	}
	return u.ID, u.Status, nil
}

func (s *Server) setDeviceStatus(ctx context.Context, sc store.Scope, id, status string) (string, string, error) {
	d, err := s.db.SetDeviceStatus(ctx, sc, id, status)
	if err != nil {
		return "", "", err
	}
	return d.ID, d.Status, nil
}

// roleTarget checks the end-user a role call names (its path names no
// application, and the user's id names its environment): an application
// secret reaches only users of its own application and environment, and an
// x-environment that names another environment than the user's does not
// reach it either; anyone else's user is not found. Without x-environment
// the id alone decides, so that a client which does not know the user's
// environment (the CLI and the TUI call with an id) reaches it.
func (s *Server) roleTarget(r *http.Request) error {
	p := principalFrom(r.Context())
	if p.Kind != store.ActorAppSecret && r.Header.Get("x-environment") == "" {
		return nil
	}
	envName, err := envOf(r)
	if err != nil {
		return err
	}
	u, err := s.db.FindEndUser(r.Context(), p.OrgID, mux.Vars(r)["user_id"])
	if err != nil {
		return err
	}
	if p.Kind == store.ActorAppSecret && u.AppID != p.AppID {
		return store.NotFound("user")
	}
	a, err := s.db.FindApplication(r.Context(), store.AppRef{OrgID: p.OrgID, AppID: u.AppID})
	if err != nil {
		return err
	}
	if env := a.Env(envName); env == nil || u.EnvID != env.ID {
		return store.NotFound("user")
	}
	return nil
}

func (s *Server) addEndUserRole(w http.ResponseWriter, r *http.Request) error {
	var req api.RoleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.roleTarget(r); err != nil {
		return err
	}
	res, err := s.db.AddEndUserRole(r.Context(), principalFrom(r.Context()).OrgID, mux.Vars(r)["user_id"], req.RoleID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.EndUserRoles{Success: true, UserID: res.UserID, Roles: nonNil(res.Roles)})
	return nil
}

func (s *Server) removeEndUserRole(w http.ResponseWriter, r *http.Request) error {
	if err := s.roleTarget(r); err != nil {
		return err
	}
	res, err := s.db.RemoveEndUserRole(r.Context(), principalFrom(r.Context()).OrgID, mux.Vars(r)["user_id"], mux.Vars(r)["role_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.EndUserRoles{Success: true, UserID: res.UserID, Roles: nonNil(res.Roles)})
	return nil
}

package server

import (
	"licensectl/server/api"
	"net/http"
	"time"

	"licensectl/store"
)

// queryTime reads an optional RFC 3339 query parameter.
func queryTime(r *http.Request, name string) (*time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, store.Invalid(name, "%s must be an RFC 3339 date-time", name)
	}
	return &t, nil
}

// auditFilter reads the filters shared by the application and organization logs.
func auditFilter(r *http.Request) (store.AuditFilter, error) {
	p, err := pageRequest(r)
	if err != nil {
		return store.AuditFilter{}, err
	}
	q := r.URL.Query()
	f := store.AuditFilter{Event: q.Get("event"), TargetID: q.Get("target_id"), PageRequest: p}
	if f.From, err = queryTime(r, "from"); err != nil {
		return f, err
	}
	f.To, err = queryTime(r, "to")
	return f, err
}

// listOrgAudit answers GET /v1/mgmt/audit-logs: the organization's own
// events (members, API keys, the organization), which no application log lists.
func (s *Server) listOrgAudit(w http.ResponseWriter, r *http.Request) error {
	f, err := auditFilter(r)
	if err != nil {
		return err
	}
	page, err := s.db.ListOrgAudit(r.Context(), principalFrom(r.Context()).OrgID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PageOf(page, api.AuditEntryOf))
	return nil
}

func (s *Server) listAudit(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	f, err := auditFilter(r)
	if err != nil {
		return err
	}
	page, err := s.db.ListAudit(r.Context(), sc, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PageOf(page, api.AuditEntryOf))
	return nil
}

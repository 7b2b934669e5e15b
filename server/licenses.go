package server

import (
	"context"
	"licensectl/server/api"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) registerLicenseRoutes(r group) {
	r.Handle("/applications/{id}/licenses", s.mgmt(permRead, s.listLicenses)).Methods(http.MethodGet)
	r.Handle("/applications/{id}/licenses", s.mgmt(permWrite, s.generateLicenses)).Methods(http.MethodPost)
	r.Handle("/applications/{id}/licenses/{licenseId}", s.mgmt(permRead, s.getLicense)).Methods(http.MethodGet)
	r.Handle("/applications/{id}/licenses/{licenseId}", s.mgmt(permWrite, setStatus("licenseId", s.setLicenseStatus))).Methods(http.MethodPatch)
	r.Handle("/applications/{id}/licenses/{licenseId}/reset-device", s.mgmt(permWrite, s.resetLicenseDevice)).Methods(http.MethodPost)
	r.Handle("/applications/{id}/licenses/{licenseId}/leases", s.mgmt(permRead, s.listLeases)).Methods(http.MethodGet)
	r.Handle("/applications/{id}/licenses/{licenseId}/leases/{leaseId}", s.mgmt(permWrite, s.releaseLease)).Methods(http.MethodDelete)
}

func userRef(id, email string) *api.UserRef {
	if id == "" {
		return nil
	}
	return &api.UserRef{ID: id, Email: email}
}

func (s *Server) licenseItem(l *store.LicenseItem) api.LicenseItem {
	return api.LicenseItem{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(s.now()), Plan: api.PlanRef{ID: l.PlanID, Name: l.PlanName},
		User: userRef(l.UserID, l.UserEmail), DevicesCount: len(l.DeviceIDs), ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

func (s *Server) listLicenses(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	p, err := pageRequest(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	page, err := s.db.ListLicenses(r.Context(), sc, store.LicenseFilter{Status: q.Get("status"), PlanID: q.Get("plan_id"),
		Key: q.Get("key"), UserID: q.Get("user_id"), UserEmail: q.Get("user_email"), PageRequest: p})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PageOf(page, s.licenseItem))
	return nil
}

func (s *Server) generateLicenses(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	var req api.GenerateLicensesRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	in := store.GenerateLicensesInput{PlanID: req.PlanID, Quantity: 1, EntitlementIDs: req.EntitlementIDs}
	if req.Quantity != nil {
		// The store reads 0 as "the default"; an explicit 0 is out of range.
		if *req.Quantity < 1 || *req.Quantity > store.MaxGenerate {
			return store.Invalid("quantity", "quantity must be between 1 and %d", store.MaxGenerate)
		}
		in.Quantity = *req.Quantity
	}
	if req.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *req.ExpiresAt)
		if err != nil {
			return store.Invalid("expires_at", "expires_at must be an RFC 3339 date-time")
		}
		in.ExpiresAt = &t
	}
	list, err := s.db.GenerateLicenses(r.Context(), sc, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.LicensesGenerated{Licenses: mapList(list, s.licenseItem)})
	return nil
}

func (s *Server) getLicense(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	d, err := s.db.FindLicense(r.Context(), sc, mux.Vars(r)["licenseId"])
	if err != nil {
		return err
	}
	item := s.licenseItem(&d.LicenseItem)
	writeJSON(w, http.StatusOK, api.LicenseDetail{ID: item.ID, Key: item.Key, Status: item.Status, Plan: item.Plan, User: item.User,
		Devices:      mapList(d.Devices, func(x store.LicenseDevice) api.LicenseDevice { return api.LicenseDevice(x) }),
		Entitlements: entitlementRefs(d.Entitlements), ActivatedAt: item.ActivatedAt, ExpiresAt: item.ExpiresAt,
		DeviceResetsRemaining: d.DeviceResetsRemaining, CreatedAt: item.CreatedAt, UpdatedAt: item.UpdatedAt})
	return nil
}

func (s *Server) setLicenseStatus(ctx context.Context, sc store.Scope, id, status string) (string, string, error) {
	l, err := s.db.SetLicenseStatus(ctx, sc, id, status)
	if err != nil {
		return "", "", err
	}
	return l.ID, l.EffectiveStatus(s.now()), nil
}

func (s *Server) resetLicenseDevice(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	var req api.ResetDeviceRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.db.ResetLicenseDevice(r.Context(), sc, mux.Vars(r)["licenseId"], req.DeviceID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

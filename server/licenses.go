package server

import (
	"context"
	"licensectl/server/api"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) licenseItem(l *store.LicenseItem) api.LicenseItem {
	return api.LicenseItemOf(l, s.now())
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
		if err := store.CheckQuantity(*req.Quantity); err != nil {
			return err
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
	writeJSON(w, http.StatusOK, api.LicenseDetailOf(d, s.now()))
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

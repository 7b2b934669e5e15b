package server

import (
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

// licenseUpdate reads a license PATCH field by field: a date or user_id
// that is null clears it, one that is absent is left alone.
func licenseUpdate(r *http.Request) (store.LicenseUpdate, error) {
	var u store.LicenseUpdate
	var body rawBody
	if err := decode(r, &body); err != nil {
		return u, err
	}
	if err := body.only("status", "expires_at", "maintenance_expires_at", "plan_id", "user_id"); err != nil {
		return u, err
	}
	var status, planID string
	var userID *string
	if ok, err := body.field("status", "string", false, &status); err != nil {
		return u, err
	} else if ok {
		u.Status = &status
	}
	for _, d := range []struct {
		name string
		dst  ***time.Time
	}{{"expires_at", &u.ExpiresAt}, {"maintenance_expires_at", &u.MaintenanceExpiresAt}} {
		var v *string
		ok, err := body.field(d.name, "string", true, &v)
		if err != nil || !ok {
			if err != nil {
				return u, err
			}
			continue
		}
		var at *time.Time
		if v != nil {
			t, err := time.Parse(time.RFC3339, *v)
			if err != nil {
				return u, store.Invalid(d.name, "%s must be an RFC 3339 date-time or null", d.name)
			}
			at = &t
		}
		*d.dst = &at
	}
	if ok, err := body.field("plan_id", "string", false, &planID); err != nil {
		return u, err
	} else if ok {
		u.PlanID = &planID
	}
	if ok, err := body.field("user_id", "string", true, &userID); err != nil {
		return u, err
	} else if ok {
		id := ""
		if userID != nil {
			if id = *userID; id == "" {
				return u, store.Invalid("user_id", "user_id must be an end-user's id, or null to unassign")
			}
		}
		u.UserID = &id
	}
	return u, nil
}

func (s *Server) updateLicense(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	u, err := licenseUpdate(r)
	if err != nil {
		return err
	}
	d, err := s.db.UpdateLicense(r.Context(), sc, mux.Vars(r)["licenseId"], u)
	if err != nil {
		return err
	}
	// The answer of every status PATCH (licenses, users, devices): whatever
	// else changed, GET reads it back.
	writeJSON(w, http.StatusOK, api.StatusChanged{ID: d.ID, Status: d.EffectiveStatus(s.now())})
	return nil
}

func (s *Server) renewLicense(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	var req api.RenewLicenseRequest
	if err := decodeOptional(r, &req); err != nil {
		return err
	}
	l, err := s.db.RenewLicense(r.Context(), sc, mux.Vars(r)["licenseId"], store.RenewInput{Days: req.Days, MaintenanceDays: req.MaintenanceDays})
	if err != nil {
		return err
	}
	d, err := s.db.FindLicense(r.Context(), sc, l.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LicenseDetailOf(d, s.now()))
	return nil
}

func (s *Server) renewLicenses(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	var req api.RenewLicensesRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Days == nil {
		return store.Invalid("days", "days is required")
	}
	list, err := s.db.RenewLicenses(r.Context(), sc, store.BulkRenewInput{LicenseIDs: req.LicenseIDs, Days: *req.Days})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LicensesRenewed{Licenses: mapList(list, s.licenseItem)})
	return nil
}

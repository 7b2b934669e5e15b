package server

import (
	"bytes"
	"encoding/json"
	"licensectl/server/api"
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) listEntitlements(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListEntitlements(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, api.EntitlementItemOf))
	return nil
}

func (s *Server) createEntitlement(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateEntitlementRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	e, err := s.db.CreateEntitlement(r.Context(), appRef(r), store.CreateEntitlementInput{Key: req.Key, Name: req.Name, Description: req.Description})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.EntitlementCreated{EntitlementID: e.ID})
	return nil
}

func (s *Server) deleteEntitlement(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.DeleteEntitlement(r.Context(), appRef(r), mux.Vars(r)["entId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

func (s *Server) listPlans(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListPlans(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, api.PlanItemOf))
	return nil
}

func (s *Server) getPlan(w http.ResponseWriter, r *http.Request) error {
	p, err := s.db.FindPlan(r.Context(), appRef(r), mux.Vars(r)["planId"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PlanItemOf(p))
	return nil
}

// rawBody is a JSON object body read field by field, so that a PATCH can
// tell a field that is absent from one that is null.
type rawBody map[string]json.RawMessage

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// field decodes the named field into dst when present. A value of the wrong
// type is validation_failed naming the field; so is null, unless nullable
// (then dst, a pointer to a pointer, is set to nil).
func (b rawBody) field(name, typ string, nullable bool, dst any) (bool, error) {
	raw, ok := b[name]
	if !ok {
		return false, nil
	}
	if isNull(raw) && !nullable {
		return true, store.Invalid(name, "%s must be of type %s, not null", name, typ)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, store.Invalid(name, "%s must be of type %s", name, typ)
	}
	return true, nil
}

// only refuses a field that is not among names (docs/design.md §7: an unknown
// field is validation_failed naming it), the first in sorted order so the
// answer does not depend on map iteration.
func (b rawBody) only(names ...string) error {
	var unknown []string
	for k := range b {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return store.Invalid(unknown[0], "unknown field %s", unknown[0])
}

// planInput reads the fields of a plan body that are present.
func planInput(r *http.Request) (store.PlanInput, error) {
	var in store.PlanInput
	var body rawBody
	if err := decode(r, &body); err != nil {
		return in, err
	}
	var (
		name       string
		isTrial    bool
		duration   *int
		maxDevices int
		resets     int
		window     int
		concurrent int
		lease      int
		offline    int
		mnt        *int
		rebind     string
		external   *string
		entIDs     []string
	)
	fields := []struct {
		name, typ string
		nullable  bool
		dst       any
		set       func()
	}{
		{"name", "string", false, &name, func() { in.Name = &name }},
		{"is_trial", "boolean", false, &isTrial, func() { in.IsTrial = &isTrial }},
		{"duration_days", "integer", true, &duration, func() { in.DurationDays = &duration }},
		{"max_devices", "integer", false, &maxDevices, func() { in.MaxDevices = &maxDevices }},
		{"device_reset_limit", "integer", false, &resets, func() { in.DeviceResetLimit = &resets }},
		{"device_reset_window_days", "integer", false, &window, func() { in.DeviceResetWindowDays = &window }},
		{"max_concurrent", "integer", false, &concurrent, func() { in.MaxConcurrent = &concurrent }},
		{"lease_seconds", "integer", false, &lease, func() { in.LeaseSeconds = &lease }},
		{"max_offline_days", "integer", false, &offline, func() { in.MaxOfflineDays = &offline }},
		{"maintenance_days", "integer", true, &mnt, func() { in.MaintenanceDays = &mnt }},
		{"rebind", "string", false, &rebind, func() { in.Rebind = &rebind }},
		{"external_product_id", "string", true, &external, func() { in.ExternalProductID = &external }},
		{"entitlement_ids", "array of strings", false, &entIDs, func() { in.EntitlementIDs = &entIDs }},
	}
	names := []string{"policies"}
	for _, f := range fields {
		names = append(names, f.name)
	}
	if err := body.only(names...); err != nil {
		return in, err
	}
	for _, f := range fields {
		ok, err := body.field(f.name, f.typ, f.nullable, f.dst)
		if err != nil {
			return in, err
		}
		if ok {
			f.set()
		}
	}
	if raw, ok := body["policies"]; ok {
		t := bytes.TrimSpace(raw)
		if !isNull(t) && (len(t) == 0 || t[0] != '{') {
			return in, store.Invalid("policies", "policies must be a JSON object or null")
		}
		in.Policies, in.PoliciesSet = raw, true
	}
	if in.EntitlementIDs != nil && *in.EntitlementIDs == nil {
		empty := []string{}
		in.EntitlementIDs = &empty
	}
	return in, nil
}

func (s *Server) createPlan(w http.ResponseWriter, r *http.Request) error {
	in, err := planInput(r)
	if err != nil {
		return err
	}
	p, err := s.db.CreatePlan(r.Context(), appRef(r), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.PlanID{PlanID: p.ID})
	return nil
}

func (s *Server) updatePlan(w http.ResponseWriter, r *http.Request) error {
	in, err := planInput(r)
	if err != nil {
		return err
	}
	p, err := s.db.UpdatePlan(r.Context(), appRef(r), mux.Vars(r)["planId"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PlanID{PlanID: p.ID})
	return nil
}

func (s *Server) deletePlan(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.DeletePlan(r.Context(), appRef(r), mux.Vars(r)["planId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

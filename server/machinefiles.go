package server

import (
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/offline"
	"licensectl/server/api"
	"licensectl/store"
)

// Machine files (docs/design.md §13): a license's standing signed for one
// device, for offline use.

func (s *Server) rtCheckoutMachineFile(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.MachineFileRequest
	tok, rp, err := sessionPost(r, &in, &in.Replay)
	if err != nil {
		return err
	}
	req := store.MachineFileInput{AccessToken: tok, Encrypt: in.Encrypt == nil || *in.Encrypt, LicenseKey: in.LicenseKey, Replay: rp}
	if in.TTL != nil {
		if *in.TTL <= 0 {
			return store.Invalid("ttl", "ttl must be a positive number of seconds")
		}
		req.TTL = *in.TTL
	}
	mf, err := s.rt.store.CheckoutMachineFile(r.Context(), c, req)
	if err != nil {
		return err
	}
	f, err := offline.Sign(mf, req.Encrypt)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.MachineFileIssued{Certificate: f.Certificate, IssuedAt: f.IssuedAt, ExpiresAt: f.ExpiresAt, TTL: f.TTL})
	return nil
}

// issueLicenseMachineFile is the air-gapped checkout: support binds the
// device and hands the file over by other means.
func (s *Server) issueLicenseMachineFile(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	var req api.LicenseMachineFileRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	in := store.LicenseMachineFileInput{Fingerprint: req.Fingerprint, Encrypt: req.Encrypt == nil || *req.Encrypt, UserEmail: req.UserEmail}
	if req.TTLDays != nil {
		if *req.TTLDays <= 0 {
			return store.Invalid("ttl_days", "ttl_days must be a positive number of days")
		}
		in.TTLDays = *req.TTLDays
	}
	f, err := s.db.IssueMachineFile(r.Context(), sc, mux.Vars(r)["licenseId"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LicenseMachineFileIssued{DeviceID: f.DeviceID,
		MachineFileIssued: api.MachineFileIssued{Certificate: f.Certificate, IssuedAt: f.IssuedAt, ExpiresAt: f.ExpiresAt, TTL: f.TTL}})
	return nil
}

package server

import (
	"net/http"

	"licensectl/machinefile"
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
	cert, err := issueMachineFile(mf, req.Encrypt)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.MachineFileIssued{Certificate: cert, IssuedAt: mf.IssuedAt.UTC(), ExpiresAt: mf.ExpiresAt.UTC(), TTL: mf.TTL})
	return nil
}

// issueMachineFile signs mf with its environment's key; encrypt seals it
// with the license key as generated and the device's fingerprint.
func issueMachineFile(mf *store.MachineFile, encrypt bool) (string, error) {
	p := &machinefile.Payload{
		Meta: machinefile.Meta{IssuedAt: mf.IssuedAt.UTC(), ExpiresAt: mf.ExpiresAt.UTC(), TTL: mf.TTL},
		License: machinefile.License{ID: mf.License.ID, Status: mf.License.Status, ExpiresAt: mf.License.ExpiresAt, Entitlements: mf.Entitlements,
			Plan: machinefile.Plan{ID: mf.Plan.ID, Name: mf.Plan.Name, MaxDevices: mf.Plan.MaxDevices, MaxConcurrent: mf.Plan.MaxConcurrent, IsTrial: mf.Plan.IsTrial}},
		Device:      machinefile.Device{ID: mf.Device.ID, Fingerprint: mf.Device.Fingerprint},
		Application: machinefile.Application{ID: mf.AppID, Environment: mf.Env.Name},
	}
	if mf.User != nil {
		p.User = &machinefile.User{ID: mf.User.ID, Email: mf.User.Email}
	}
	if p.License.Entitlements == nil {
		p.License.Entitlements = []string{}
	}
	return machinefile.Issue(mf.Env.SigningKey, mf.Env.KeyID, p, encrypt, mf.License.Key)
}

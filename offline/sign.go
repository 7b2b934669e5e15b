// Package offline signs machine files (docs/design.md §13) from what a store
// decided: the store.MachineFileSigner the wiring hands every store.
package offline

import (
	"licensectl.dev/sdk/go/machinefile"
	"licensectl/store"
)

var _ store.MachineFileSigner = Sign

// Sign builds the certificate of mf, signed with its environment's key;
// encrypt seals it for the license key as generated and the device's
// fingerprint.
func Sign(mf *store.MachineFile, encrypt bool) (*store.IssuedMachineFile, error) {
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
	cert, err := machinefile.Issue(mf.Env.SigningKey, mf.Env.KeyID, p, encrypt, mf.License.Key)
	if err != nil {
		return nil, err
	}
	return &store.IssuedMachineFile{Certificate: cert, IssuedAt: mf.IssuedAt.UTC(), ExpiresAt: mf.ExpiresAt.UTC(), TTL: mf.TTL, DeviceID: mf.Device.ID}, nil
}

package store

import (
	"context"
	"time"
)

// IssueMachineFile implements MachineFiles: one write binds the device as
// an activation does, under the license held, and records
// license.checked_out; the file is signed by Policies.MachineFiles after
// the commit, from what the write read.
func (sv *Service) IssueMachineFile(ctx context.Context, s Scope, licenseID string, in LicenseMachineFileInput) (*IssuedMachineFile, error) {
	if sv.MachineFiles == nil {
		return nil, Errorf(ECodeUnavailable, "this store was opened without a machine-file signer")
	}
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	newDevID := NewID()
	var mf *MachineFile
	err = sv.update(ctx, func(t Tx) error {
		mf = nil
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		l, err := t.LockLicense(env.ID, licenseID)
		if err != nil {
			return err
		}
		if err := LicenseError(LicenseReason(l, t.Now())); err != nil {
			return err
		}
		plan, err := t.LicensePlan(l)
		if err != nil {
			return err
		}
		ttl, err := MachineFileTTLDays(in.TTLDays, plan.OfflineDays())
		if err != nil {
			return err
		}
		userID := ""
		if in.UserEmail != "" {
			if userID, err = t.EndUserIDByEmail(env.ID, in.UserEmail); err != nil {
				return err
			}
			if userID == "" {
				return NotFound("user")
			}
		}
		ra := &RuntimeApp{App: a, Env: env}
		rt := t.Runtime()
		dev, bound, err := BindFingerprint(rt, ra, l, plan, in.Fingerprint, userID, newDevID)
		if err != nil {
			return err
		}
		ents, err := rt.LicenseEntitlements(l)
		if err != nil {
			return err
		}
		if mf, err = licenseMachineFile(t, ra, l, plan, dev, ents, ttl); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventLicenseCheckedOut, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": dev.ID, "fingerprint": in.Fingerprint,
				"new_binding": !bound, "expires_at": mf.ExpiresAt.Format(time.RFC3339Nano), "by": "management"}})
	})
	if err != nil {
		return nil, err
	}
	return sv.MachineFiles(mf, in.Encrypt)
}

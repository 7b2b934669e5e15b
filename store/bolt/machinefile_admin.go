package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.MachineFiles = (*DB)(nil)

// IssueMachineFile implements store.MachineFiles: one write binds the device
// as an activation does (the binding code is the runtime's) and records
// license.checked_out; the file is signed after the commit, from what the
// write read.
func (db *DB) IssueMachineFile(ctx context.Context, s store.Scope, licenseID string, in store.LicenseMachineFileInput) (*store.IssuedMachineFile, error) {
	if db.MachineFiles == nil {
		return nil, store.Errorf(store.ECodeUnavailable, "this store was opened without a machine-file signer")
	}
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	// A per-call runtime view: its decode cache checks every record against
	// the stored bytes, so a fresh one only costs the decoding.
	r := &Runtime{db: db, cache: newDecodeCache()}
	newDevID := store.NewID()
	var mf *store.MachineFile
	err = db.update(ctx, func(t *txn) error {
		mf = nil
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prev, err := t.license(env.ID, licenseID)
		if err != nil {
			return err
		}
		l := *prev
		if err := store.LicenseError(store.LicenseReason(&l, t.now)); err != nil {
			return err
		}
		plan, err := r.leasePlan(t, &l)
		if err != nil {
			return err
		}
		ttl, err := store.MachineFileTTLDays(in.TTLDays, offlineDays(plan))
		if err != nil {
			return err
		}
		userID := ""
		if in.UserEmail != "" {
			if userID = t.endUserByEmail(env.ID, in.UserEmail); userID == "" {
				return store.NotFound("user")
			}
		}
		ra := &store.RuntimeApp{App: a, Env: env}
		dev, bound, err := store.BindFingerprint(runtimeTxn{txn: t, r: r}, ra, &l, plan, in.Fingerprint, userID, newDevID)
		if err != nil {
			return err
		}
		if mf, err = r.machineFile(t, ra, &l, plan, dev, ttl); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventLicenseCheckedOut, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: store.Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": dev.ID, "fingerprint": in.Fingerprint,
				"new_binding": !bound, "expires_at": mf.ExpiresAt.Format(time.RFC3339Nano), "by": "management"}})
	})
	if err != nil {
		return nil, err
	}
	return db.MachineFiles(mf, in.Encrypt)
}

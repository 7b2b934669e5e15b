package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

// CheckoutMachineFile implements store.Runtime. The checkout is one write:
// the nonce, the checks and the license.checked_out entry; the caller signs
// the file from what it returns.
func (r *Runtime) CheckoutMachineFile(ctx context.Context, c store.RuntimeClient, in store.MachineFileInput) (*store.MachineFile, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out *store.MachineFile
	err := r.softBatch(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		if err := r.consumeNonce(t, ra, in.Replay, "license"); err != nil {
			return err
		}
		v, err := r.leaseSession(t, ra, in.AccessToken)
		if err != nil {
			return err
		}
		t.asActor(store.ActorLicense, v.lic.ID)
		if in.LicenseKey != "" && store.NormalizeLicenseKey(in.LicenseKey) != v.lic.Key {
			return store.ErrLicenseMismatch()
		}
		p, err := r.leasePlan(t, v.lic)
		if err != nil {
			return err
		}
		ttl, err := store.MachineFileTTL(in.TTL, p.OfflineDays())
		if err != nil {
			return err
		}
		out, err = r.machineFile(t, ra, v.lic, p, v.dev, ttl)
		if err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventLicenseCheckedOut, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: store.Target{Type: "license", ID: v.lic.ID}, Metadata: map[string]any{"device_id": v.dev.ID,
				"expires_at": out.ExpiresAt.Format(time.RFC3339Nano), "by": "runtime"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// machineFile is the content of a machine file of l on dev, valid ttl
// seconds from now or until the license expires, whichever comes first.
func (r *Runtime) machineFile(t *txn, ra *store.RuntimeApp, l *store.License, p *store.Plan, dev *store.Device, ttl int) (*store.MachineFile, error) {
	ents, err := r.licenseEntitlements(t, l, nil)
	if err != nil {
		return nil, err
	}
	exp := t.now.Add(time.Duration(ttl) * time.Second)
	if l.ExpiresAt != nil && l.ExpiresAt.Before(exp) {
		exp = *l.ExpiresAt
	}
	mf := &store.MachineFile{Env: ra.Env, AppID: ra.App.ID, IssuedAt: t.now, ExpiresAt: exp, TTL: ttl, License: *l, Plan: *p,
		Entitlements: sortedSet(ents), Device: *dev}
	mf.License.Status = l.EffectiveStatus(t.now)
	if l.UserID != "" {
		u, err := t.endUser(ra.Env.ID, l.UserID)
		if err != nil {
			return nil, err
		}
		mf.User = u
	}
	return mf, nil
}

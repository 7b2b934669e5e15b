package postgres

import (
	"context"
	"slices"
	"time"

	"licensectl/store"
)

var _ store.MachineFiles = (*DB)(nil)

// CheckoutMachineFile implements store.Runtime. The checkout is one write:
// the nonce, the checks and the license.checked_out entry; the caller signs
// the file from what it returns.
func (r *Runtime) CheckoutMachineFile(ctx context.Context, c store.RuntimeClient, in store.MachineFileInput) (*store.MachineFile, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out *store.MachineFile
	err := r.softUpdate(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		if err := r.consumeNonce(t, ra, in.Replay, "license"); err != nil {
			return err
		}
		v, err := t.licLeaseSession(ra, in.AccessToken, false)
		if err != nil {
			return err
		}
		t.rtActor(store.ActorLicense, v.lic.ID)
		if in.LicenseKey != "" && store.NormalizeLicenseKey(in.LicenseKey) != v.lic.Key {
			return store.ErrLicenseMismatch()
		}
		p, err := t.leasePlan(v.lic)
		if err != nil {
			return err
		}
		ttl, err := store.MachineFileTTL(in.TTL, p.OfflineDays())
		if err != nil {
			return err
		}
		if out, err = t.machineFile(ra, v.lic, p, v.dev, ttl); err != nil {
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
func (t *txn) machineFile(ra *store.RuntimeApp, l *store.License, p *store.Plan, dev *store.Device, ttl int) (*store.MachineFile, error) {
	ents, err := t.licEntitlementKeys(l, p)
	if err != nil {
		return nil, err
	}
	exp := t.now.Add(time.Duration(ttl) * time.Second)
	if l.ExpiresAt != nil && l.ExpiresAt.Before(exp) {
		exp = *l.ExpiresAt
	}
	plan := *p
	// The file carries the plan as stored, its entitlements as keys apart.
	plan.Entitlements = nil
	mf := &store.MachineFile{Env: ra.Env, AppID: ra.App.ID, IssuedAt: t.now, ExpiresAt: exp, TTL: ttl, License: *l, Plan: plan,
		Entitlements: ents, Device: *dev}
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

// licEntitlementKeys is the sorted set of the keys of the license's
// entitlements, its plan's and its own, in one query; a deleted
// entitlement grants nothing.
func (t *txn) licEntitlementKeys(l *store.License, p *store.Plan) ([]string, error) {
	ids := slices.Concat(p.EntitlementIDs, l.EntitlementIDs)
	keys := []string{}
	if len(ids) == 0 {
		return keys, nil
	}
	rows, err := t.tx.Query(t.ctx, `SELECT DISTINCT key FROM entitlements WHERE id = ANY($1) ORDER BY key`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

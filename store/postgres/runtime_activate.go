package postgres

import (
	"context"

	"licensectl/store"
)

// Activate implements store.Runtime. The license row is locked before its
// devices are counted, so that activations on every server bind at most
// max_devices (docs/design.md §12).
func (r *Runtime) Activate(ctx context.Context, c store.RuntimeClient, in store.ActivateInput) (*store.Activation, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	userHash := ""
	if in.UserToken != "" {
		userHash = store.HashSecret(in.UserToken)
	}
	seed := newRTSeed("")
	var out *store.Activation
	err = r.softUpdate(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		t.rtActor(store.ActorLicense, "")
		if err := r.consumeNonce(t, ra, in.Replay, "license"); err != nil {
			return err
		}
		out, err = r.activate(t, c, ra, in.LicenseKey, in.Fingerprint, userHash, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rtLicense is a license an activation or a reset found by its key, with
// its row locked, its plan (nil when gone) and its entitlement keys.
type rtLicense struct {
	l    *store.License
	plan *store.Plan
	keys []string
}

// lockLicenseByKey loads, in one statement, the license of environment
// envID with the canonical key k, its row locked until the transaction
// ends (as lockLicense does), with its plan and entitlement keys. Returns
// not_found.
func (t *txn) lockLicenseByKey(envID, k string) (*rtLicense, error) {
	var raw, plan []byte
	var n int
	out := new(rtLicense)
	err := t.tx.QueryRow(t.ctx, `SELECT l.doc, l.devices_count, p.doc, `+rtKeysExpr("l.doc", "p.doc")+`
		FROM licenses l LEFT JOIN plans p ON p.id = l.plan_id WHERE l.key = $1 FOR UPDATE OF l`, k).Scan(&raw, &n, &plan, &out.keys)
	if noRows(err) {
		return nil, store.NotFound("license")
	}
	if err != nil {
		return nil, err
	}
	if out.l, err = decodeLicense(raw, n); err != nil {
		return nil, err
	}
	if out.l.EnvID != envID {
		return nil, store.NotFound("license")
	}
	if plan != nil {
		if out.plan, err = decode[store.Plan](plan); err != nil {
			return nil, err
		}
	}
	out.keys = rtKeySet(out.keys)
	return out, nil
}

// activate is the activation proper, after the nonce is consumed. Every
// check comes before the first write, so a refusal leaves nothing behind
// but the consumed nonce.
func (r *Runtime) activate(t *txn, c store.RuntimeClient, ra *store.RuntimeApp, licKey, fp, userHash string, seed rtSeed) (*store.Activation, error) {
	var userID string
	var roles []string
	if userHash != "" {
		v, err := r.view(t.ctx, t.tx, c, rtByAccess, userHash, t.now)
		if err != nil {
			return nil, err
		}
		if v.cascade(t.now, true) != "" || v.user == nil {
			return nil, store.ErrEndUserToken()
		}
		userID, roles = v.user.ID, v.user.Roles
	}
	found, err := t.lockLicenseByKey(ra.Env.ID, licKey)
	if err != nil {
		return nil, err
	}
	l, plan := found.l, found.plan
	t.rtActor(store.ActorLicense, l.ID)
	if err := store.LicenseError(store.LicenseReason(l, t.now)); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, store.NotFound("plan")
	}
	dev, bound, err := t.bind(ra, l, plan, fp, userID, seed.DeviceID)
	if err != nil {
		return nil, err
	}
	// bind changes no entitlement: the keys read with the license hold.
	sess, err := r.openSession(t, rtSpec{ra: ra, licenseID: l.ID, userID: userID, deviceID: dev.ID, ents: found.keys, roles: roles, mnt: l.MaintenanceExpiresAt}, seed)
	if err != nil {
		return nil, err
	}
	if err := t.audit(auditEvent{Event: store.EventLicenseActivated, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: store.Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": dev.ID, "fingerprint": fp, "new_binding": !bound, "user_id": userID}}); err != nil {
		return nil, err
	}
	return &store.Activation{RuntimeSession: *sess, LicenseStatus: l.EffectiveStatus(t.now), LicenseExpiresAt: l.ExpiresAt}, nil
}

// lockedDeviceByFingerprint loads the device of envID with this fingerprint
// with its row locked, as every change of a device's doc does, and whether
// it is bound to the license licenseID ("" for none); nil when there is no
// such device.
func (t *txn) lockedDeviceByFingerprint(envID, fp, licenseID string) (*store.Device, bool, error) {
	var raw []byte
	var bound bool
	err := t.tx.QueryRow(t.ctx, `SELECT d.doc, EXISTS (SELECT 1 FROM license_devices ld WHERE ld.license_id = $3 AND ld.device_id = d.id)
		FROM devices d WHERE d.env_id = $1 AND d.fingerprint = $2 FOR UPDATE OF d`, envID, fp, uuidOrNil(licenseID)).Scan(&raw, &bound)
	if noRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	d, err := decode[store.Device](raw)
	return d, bound, err
}

// insertNewDevice writes a device the runtime creates; false when another
// transaction created one with its fingerprint first (the caller reads that
// one instead).
func (t *txn) insertNewDevice(d *store.Device) (bool, error) {
	n, err := t.exec(`INSERT INTO devices (id, app_id, env_id, fingerprint, status, doc) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (env_id, fingerprint) DO NOTHING`, d.ID, d.AppID, d.EnvID, d.Fingerprint, d.Status, js(d))
	return n == 1, err
}

// bind binds the device of fingerprint fp (created as newDevID when the
// environment has none) to l, locked by the caller, as an activation does:
// it activates l and gives it userID's ownership when it has none; l is
// updated in place. Every check comes before the first write. It reports
// whether the device was bound already. Returns the refusals of
// l.CheckOwner and store.CheckBind.
func (t *txn) bind(ra *store.RuntimeApp, l *store.License, plan *store.Plan, fp, userID, newDevID string) (*store.Device, bool, error) {
	if err := l.CheckOwner(userID); err != nil {
		return nil, false, err
	}
	for attempt := 0; ; attempt++ {
		dev, bound, err := t.lockedDeviceByFingerprint(ra.Env.ID, fp, l.ID)
		if err != nil {
			return nil, false, err
		}
		// l's row is locked: its count cannot move before the commit.
		if err := store.CheckBind(l, plan, dev, bound, l.DevicesCount); err != nil {
			return nil, false, err
		}
		// Writes start here. A new device is written once, already bound.
		isNew := dev == nil
		if isNew {
			dev = &store.Device{ID: newDevID, AppID: ra.App.ID, EnvID: ra.Env.ID, Fingerprint: fp, Status: store.DeviceActive, LicenseIDs: []string{}, CreatedAt: t.now}
		}
		if !bound {
			// An activation is a sighting: recorded here, where the device
			// is written anyway, it spares the last-seen flush a write.
			dev.RecordBinding(l, plan, userID, t.now)
			if isNew {
				ok, err := t.insertNewDevice(dev)
				if err != nil {
					return nil, false, err
				}
				if !ok && attempt < 2 {
					continue // created meanwhile by another activation: check again with it
				}
				if !ok {
					return nil, false, errRTBusy()
				}
			} else if err := t.saveDevice(dev, false); err != nil {
				return nil, false, err
			}
			if _, err := t.bindDevice(l.ID, dev.ID); err != nil {
				return nil, false, err
			}
			l.DevicesCount++
		}
		if changed := l.RecordActivation(plan, userID, t.now); changed || !bound {
			l.UpdatedAt = t.now
			if err := t.saveLicense(ra.App.OrgID, l, false); err != nil {
				return nil, false, err
			}
		}
		return dev, bound, nil
	}
}

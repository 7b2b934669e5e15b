package bolt

import (
	"context"

	"licensectl/store"
)

// Activate implements store.Runtime.
func (r *Runtime) Activate(ctx context.Context, c store.RuntimeClient, in store.ActivateInput) (*store.Activation, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	licKey, fp := in.LicenseKey, in.Fingerprint
	userHash := ""
	if in.UserToken != "" {
		userHash = store.HashSecret(in.UserToken)
	}
	seed := newTokenSeed("")
	r.presignActivation(ctx, c, licKey, fp, in.UserToken, userHash, &seed)
	var out *store.Activation
	err = r.softBatch(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		t.asActor(store.ActorLicense, "")
		if err := r.consumeNonce(t, ra, in.Replay, "license"); err != nil {
			return err
		}
		out, err = r.activate(t, ra, licKey, fp, in.UserToken, userHash, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// presignActivation reads what an activation is expected to find and signs
// its access token outside the write transaction. Any surprise just leaves
// the token unsigned; the transaction decides everything.
func (r *Runtime) presignActivation(ctx context.Context, c store.RuntimeClient, licKey, fp, userToken, userHash string, seed *tokenSeed) {
	var sp *sessionSpec
	_ = r.db.view(ctx, func(t *txn) error {
		ra, err := r.activeApp(t, c)
		if err != nil || licKey == "" {
			return nil
		}
		var userID string
		var roles []string
		if userHash != "" {
			s, err := r.findByAccess(t, userToken, userHash)
			if err != nil {
				return nil
			}
			reason, v, err := r.cascade(t, ra, s, true)
			if err != nil || reason != "" || v.user == nil {
				return nil
			}
			userID, roles = v.user.ID, v.user.Roles
		}
		l, err := cachedGet[store.License](r.cache, t, tagLicense, bLicenses, idb(t.licenseByKey(licKey)))
		if err != nil || l == nil || l.EnvID != ra.Env.ID {
			return nil
		}
		devID := t.lookup(bDevicesFP, key(idb(ra.Env.ID), []byte(fp)))
		if devID == "" {
			devID = seed.DeviceID
		}
		ents, err := r.licenseEntitlements(t, l, nil)
		if err != nil {
			return nil
		}
		sp = &sessionSpec{ra: ra, licenseID: l.ID, userID: userID, deviceID: devID, ents: sortedSet(ents), roles: roles, mnt: l.MaintenanceExpiresAt}
		return nil
	})
	if sp != nil {
		r.presign(*sp, seed)
	}
}

// activate is the activation proper, after the nonce is consumed. Every
// check comes before the first write, so a refusal leaves nothing behind but
// the consumed nonce.
func (r *Runtime) activate(t *txn, ra *store.RuntimeApp, licKey, fp, userToken, userHash string, seed tokenSeed) (*store.Activation, error) {
	var userID string
	var roles []string
	if userHash != "" {
		s, err := r.findByAccess(t, userToken, userHash)
		if err != nil {
			return nil, err
		}
		reason, v, err := r.cascade(t, ra, s, true)
		if err != nil {
			return nil, err
		}
		if reason != "" || v.user == nil {
			return nil, store.ErrEndUserToken()
		}
		userID, roles = v.user.ID, v.user.Roles
	}
	id := t.licenseByKey(licKey)
	if id == "" {
		return nil, store.NotFound("license")
	}
	// Records come from the decode cache and are copied before any change:
	// the fields changed below are replaced, never modified in place.
	cl, err := cachedGet[store.License](r.cache, t, tagLicense, bLicenses, idb(id))
	if err != nil {
		return nil, err
	}
	if cl == nil || cl.EnvID != ra.Env.ID {
		return nil, store.NotFound("license")
	}
	lc := *cl
	l := &lc
	t.asActor(store.ActorLicense, l.ID)
	if err := store.LicenseError(store.LicenseReason(l, t.now)); err != nil {
		return nil, err
	}
	plan, err := cachedGet[store.Plan](r.cache, t, tagPlan, bPlans, idb(l.PlanID))
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, store.NotFound("plan")
	}
	dev, bound, err := r.bind(t, ra, l, plan, fp, userID, seed.DeviceID)
	if err != nil {
		return nil, err
	}
	ents, err := r.licenseEntitlements(t, l, nil)
	if err != nil {
		return nil, err
	}
	ents = sortedSet(ents)
	sess, err := r.openSession(t, sessionSpec{ra: ra, licenseID: l.ID, userID: userID, deviceID: dev.ID, ents: ents, roles: roles, mnt: l.MaintenanceExpiresAt}, seed)
	if err != nil {
		return nil, err
	}
	if err := t.audit(auditEvent{Event: store.EventLicenseActivated, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: store.Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": dev.ID, "fingerprint": fp, "new_binding": !bound, "user_id": userID}}); err != nil {
		return nil, err
	}
	return &store.Activation{RuntimeSession: *sess, LicenseStatus: l.EffectiveStatus(t.now), LicenseExpiresAt: l.ExpiresAt}, nil
}

// bind binds the device of fingerprint fp (created as newDevID when the
// environment has none) to l as an activation does, activating l and giving
// it userID's ownership when it has none; l is updated in place. Every check
// comes before the first write. It reports whether the device was bound
// already. Returns the refusals of l.CheckOwner and store.CheckBind.
func (r *Runtime) bind(t *txn, ra *store.RuntimeApp, l *store.License, plan *store.Plan, fp, userID, newDevID string) (*store.Device, bool, error) {
	if err := l.CheckOwner(userID); err != nil {
		return nil, false, err
	}
	var dev *store.Device
	if devID := t.lookup(bDevicesFP, key(idb(ra.Env.ID), []byte(fp))); devID != "" {
		cd, err := cachedGet[store.Device](r.cache, t, tagDevice, bDevices, idb(devID))
		if err != nil {
			return nil, false, err
		}
		if cd == nil || cd.EnvID != ra.Env.ID {
			return nil, false, store.NotFound("device")
		}
		dc := *cd
		dev = &dc
	}
	bound := dev != nil && t.isBound(l.ID, dev.ID)
	if err := store.CheckBind(l, plan, dev, bound, l.DevicesCount); err != nil {
		return nil, false, err
	}

	// Writes start here. A new device is written once, already bound.
	var prevDev *store.Device
	if dev == nil {
		dev = &store.Device{ID: newDevID, AppID: ra.App.ID, EnvID: ra.Env.ID, Fingerprint: fp, Status: store.DeviceActive, LicenseIDs: []string{}, CreatedAt: t.now}
	} else {
		p := *dev
		prevDev = &p
	}
	prevLic := *l
	if !bound {
		// An activation is a sighting: recorded here, where the device is
		// written anyway, it spares the last-seen flusher a write.
		dev.RecordBinding(l, plan, userID, t.now)
		if err := t.saveDevice(prevDev, dev); err != nil {
			return nil, false, err
		}
		if err := t.bindDevice(l, dev.ID, t.now); err != nil {
			return nil, false, err
		}
	}
	if changed := l.RecordActivation(plan, userID, t.now); changed || !bound {
		l.UpdatedAt = t.now
		if err := t.saveLicense(&prevLic, l); err != nil {
			return nil, false, err
		}
	}
	return dev, bound, nil
}

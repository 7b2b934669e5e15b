package store

import (
	"context"
	"slices"
	"strings"
)

// Activate binds the device to the license and opens a session
// (docs/design.md §6), or re-binds a bound device recognised by its
// components under a new fingerprint (§17). The license is held before its
// devices are counted, so that activations on every server bind at most
// max_devices (§12). Every check comes before the first write, so a refusal
// leaves nothing behind but the consumed nonce and its audit entry.
// Returns validation_failed, stale_timestamp, nonce_reused, not_found, the
// refusals of LicenseError, CheckOwner and CheckBind.
func (rs *RuntimeService) Activate(ctx context.Context, c RuntimeClient, in ActivateInput) (*Activation, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	seed := NewSessionSeed()
	if p, ok := rs.storage.(ActivationPreparer); ok {
		p.PrepareActivation(ctx, c, in, &seed)
	}
	var out *Activation
	err = rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		ra, err := replayedApp(t, c, in.Replay, ActorLicense, "", "license")
		if err != nil {
			return err
		}
		out, err = activate(t, c, ra, in, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// activate is the activation proper, after the nonce is consumed.
func activate(t RuntimeTx, c RuntimeClient, ra *RuntimeApp, in ActivateInput, seed SessionSeed) (*Activation, error) {
	var user *EndUser
	if in.UserToken != "" {
		var err error
		if user, err = t.SessionUser(c, ra, in.UserToken); err != nil {
			return nil, err
		}
	}
	// The license read is this transaction's copy: bind changes it in
	// place, keeping what it read for PutLicense.
	l, plan, err := t.LockLicenseByKey(ra.Env.ID, in.LicenseKey)
	if err != nil {
		return nil, err
	}
	t.ActAs(ActorLicense, l.ID)
	if err := LicenseError(LicenseReason(l, t.Now())); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, NotFound("plan")
	}
	userID := ""
	if user != nil {
		userID = user.ID
	}
	dev, bound, rebound, err := bind(t, ra, l, plan, in, userID, seed.DeviceID)
	if err != nil {
		return nil, err
	}
	ents, err := t.LicenseEntitlements(l)
	if err != nil {
		return nil, err
	}
	var roles []string
	if user != nil {
		roles = user.Roles
	}
	sess, err := t.OpenSession(ra, SessionSubject{LicenseID: l.ID, UserID: userID, DeviceID: dev.ID, Entitlements: ents, Roles: roles,
		MaintenanceExpiresAt: l.MaintenanceExpiresAt}, seed)
	if err != nil {
		return nil, err
	}
	ev := AuditEvent{Event: EventLicenseActivated, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": dev.ID, "fingerprint": in.Fingerprint, "new_binding": !bound, "user_id": userID}}
	if rebound != nil {
		md := map[string]any{"license_id": l.ID, "previous_fingerprint": rebound.fingerprint,
			"fingerprint": in.Fingerprint, "sessions_revoked": rebound.sessions, "user_id": userID}
		if rebound.device != "" {
			md["previous_device_id"] = rebound.device
		}
		ev = AuditEvent{Event: EventDeviceRebound, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: Target{Type: "device", ID: dev.ID}, Metadata: md}
	}
	if err := t.Audit(ev); err != nil {
		return nil, err
	}
	return &Activation{RuntimeSession: *sess, LicenseStatus: l.EffectiveStatus(t.Now()), LicenseExpiresAt: l.ExpiresAt}, nil
}

// rebinding is what a re-bind replaced: the fingerprint that held the
// binding before it, the device that held it when that was another one
// ("" when the device itself took the new fingerprint), and how many
// sessions it revoked.
type rebinding struct {
	fingerprint string
	device      string
	sessions    int
}

// bind binds the device of in's fingerprint (created as newDevID when the
// environment has none) to l, held by the caller and updated in place, as
// an activation does: it activates l and gives it userID's ownership when
// it has none. A fingerprint not bound to l, new to the environment or
// naming a device that may re-bind (MayRebind), whose components match
// most of a bound device's re-binds that device instead (rebindTarget). It
// reports whether the device was bound already and, for a re-bind, what it
// replaced. Returns the refusals of l.CheckOwner and CheckBind.
func bind(t RuntimeTx, ra *RuntimeApp, l *License, plan *Plan, in ActivateInput, userID, newDevID string) (*Device, bool, *rebinding, error) {
	if err := l.CheckOwner(userID); err != nil {
		return nil, false, nil, err
	}
	now := t.Now()
	for attempt := 0; ; attempt++ {
		held, bound, err := t.LockDeviceByFingerprint(ra.Env.ID, in.Fingerprint, l.ID)
		if err != nil {
			return nil, false, nil, err
		}
		if held == nil || (!bound && held.MayRebind(l, plan)) {
			old, err := rebindTarget(t, ra, l, plan, in.Components)
			if err != nil {
				return nil, false, nil, err
			}
			if old != nil && held == nil {
				dev, rb, err := rebind(t, l, plan, old, in, userID)
				return dev, true, rb, err
			}
			if old != nil {
				// The fingerprint is another device's: the binding moves.
				dev, rb, err := moveBinding(t, l, plan, held, old, in, userID)
				return dev, true, rb, err
			}
		}
		// l is held: its count cannot move before the commit.
		if err := CheckBind(l, plan, held, bound, l.DevicesCount); err != nil {
			return nil, false, nil, err
		}
		// Writes start here. A new device is written once, already bound.
		// A device bound already, sending what it sent before, is not
		// written: the common case of a client starting again.
		dev := held
		switch {
		case held == nil:
			dev = &Device{ID: newDevID, AppID: ra.App.ID, EnvID: ra.Env.ID, Fingerprint: in.Fingerprint, Status: DeviceActive,
				LicenseIDs: []string{}, Components: slices.Clone(in.Components), CreatedAt: now}
		case !bound || !held.KeepsComponents(in.Components):
			d := *held
			dev = &d
		}
		changed := dev.RecordComponents(in.Components)
		prevL := *l
		if !bound {
			// An activation is a sighting: recorded here, where the device
			// is written anyway, it spares the last-seen flusher a write.
			dev.RecordBinding(l, plan, userID, now)
			if held == nil {
				ok, err := t.InsertDevice(dev)
				if err != nil {
					return nil, false, nil, err
				}
				if !ok && attempt < 2 {
					continue // created meanwhile by another activation: check again with it
				}
				if !ok {
					return nil, false, nil, ErrRecordBusy()
				}
			} else if err := t.PutDevice(held, dev); err != nil {
				return nil, false, nil, err
			}
			if err := t.BindDevice(l, dev.ID); err != nil {
				return nil, false, nil, err
			}
		} else if changed {
			if err := t.PutDevice(held, dev); err != nil {
				return nil, false, nil, err
			}
		}
		if changed := l.RecordActivation(plan, userID, now); changed || !bound {
			l.UpdatedAt = now
			if err := t.PutLicense(&prevL, l); err != nil {
				return nil, false, nil, err
			}
		}
		return dev, bound, nil, nil
	}
}

// rebindTarget is the device of l that an activation of a fingerprint not
// bound to l, arriving with components, re-binds under plan: a
// bound, unblocked device whose components it matches on most of them
// (ComponentsMatchMost), the one with the most matches, the oldest of
// those. The match is only computed when it can succeed, so an ordinary
// activation reads no more than before. nil when there is none; the device
// returned is held.
func rebindTarget(t RuntimeTx, ra *RuntimeApp, l *License, plan *Plan, arriving []DeviceComponent) (*Device, error) {
	if plan.RebindMode() != RebindMost || len(arriving) < 2 || l.DevicesCount == 0 {
		return nil, nil
	}
	bound, err := t.BoundDevices(l.ID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(bound, func(a, b *Device) int { return strings.Compare(a.ID, b.ID) })
	var best *Device
	most := 0
	for _, d := range bound {
		if d.Status == DeviceBlocked || !ComponentsMatchMost(d.Components, arriving) {
			continue
		}
		if n := matchingComponents(d.Components, arriving); n > most {
			best, most = d, n
		}
	}
	if best == nil {
		return nil, nil
	}
	// Held now, and checked again as held: a block racing the re-bind
	// either lands first and is seen, or waits for the commit.
	d, err := t.LockDevice(ra.Env.ID, best.ID)
	if err != nil {
		return nil, err
	}
	if d.Status == DeviceBlocked || !slices.Contains(d.LicenseIDs, l.ID) || !ComponentsMatchMost(d.Components, arriving) {
		return nil, nil
	}
	return d, nil
}

// rebind gives the bound device held the fingerprint and components of in:
// no seat is taken and no reset spent, its sessions end (what still holds
// its old fingerprint holds no session), and l moves as an activation by
// userID moves it. It returns the device as re-bound.
func rebind(t RuntimeTx, l *License, plan *Plan, held *Device, in ActivateInput, userID string) (*Device, *rebinding, error) {
	now := t.Now()
	d := *held
	d.Fingerprint, d.Components = in.Fingerprint, slices.Clone(in.Components)
	seen := now
	d.LastSeenAt = &seen
	if userID != "" && d.UserID == "" {
		d.UserID = userID
	}
	if err := t.PutDevice(held, &d); err != nil {
		return nil, nil, err
	}
	n, err := t.RevokeSessions(OwnerDevice, d.ID, RevokedDeviceRebound)
	if err != nil {
		return nil, nil, err
	}
	prevL := *l
	if l.RecordActivation(plan, userID, now) {
		l.UpdatedAt = now
		if err := t.PutLicense(&prevL, l); err != nil {
			return nil, nil, err
		}
	}
	return &d, &rebinding{fingerprint: held.Fingerprint, sessions: n}, nil
}

// moveBinding gives the binding of old, the bound device the components
// of in recognised, to held, the device of in's fingerprint, which is not
// bound to l (a login created it, or another license binds it): held's
// record is the one the client's tokens name and the fingerprint is
// unique, so the binding moves rather than the fingerprint. No seat is
// taken and no reset spent; held takes in's components, old keeps its
// fingerprint, its other bindings and its sessions but those of l, which
// end, and l moves as an activation by userID moves it.
func moveBinding(t RuntimeTx, l *License, plan *Plan, held, old *Device, in ActivateInput, userID string) (*Device, *rebinding, error) {
	now := t.Now()
	d := *held
	d.RecordComponents(in.Components)
	d.RecordBinding(l, plan, userID, now)
	if err := t.PutDevice(held, &d); err != nil {
		return nil, nil, err
	}
	prevL := *l
	if err := t.BindDevice(l, d.ID); err != nil {
		return nil, nil, err
	}
	l.RecordActivation(plan, userID, now)
	o := *old
	n, err := unbind(t, &prevL, l, old, &o, RevokedDeviceRebound)
	if err != nil {
		return nil, nil, err
	}
	return &d, &rebinding{fingerprint: old.Fingerprint, device: old.ID, sessions: n}, nil
}

// BindFingerprint binds the device of fingerprint fp (created as newDevID
// when the environment has none) to l, held by the caller and updated in
// place, as an activation without components does: what a management
// checkout of a machine file binds. It reports whether the device was bound
// already. Returns the refusals of l.CheckOwner and CheckBind.
func BindFingerprint(t RuntimeTx, ra *RuntimeApp, l *License, plan *Plan, fp, userID, newDevID string) (*Device, bool, error) {
	dev, bound, _, err := bind(t, ra, l, plan, ActivateInput{Fingerprint: fp}, userID, newDevID)
	return dev, bound, err
}

// loginDevice finds the device of the login's fingerprint for end-user u,
// or creates it as newDevID, as a runtime login does (docs/design.md §5):
// a blocked device is refused, one without an owner takes u, and the
// components sent are stored with it. Returns device_blocked.
func loginDevice(t RuntimeTx, ra *RuntimeApp, u *EndUser, in RuntimeLoginInput, newDevID string) (*Device, error) {
	now := t.Now()
	for attempt := 0; ; attempt++ {
		held, _, err := t.LockDeviceByFingerprint(ra.Env.ID, in.Fingerprint, "")
		if err != nil {
			return nil, err
		}
		if held != nil {
			if err := held.CheckUsable(); err != nil {
				return nil, err
			}
			d := *held
			changed := d.RecordComponents(in.Components)
			if d.UserID == "" {
				d.UserID, d.LastSeenAt, changed = u.ID, &now, true
			}
			if changed {
				if err := t.PutDevice(held, &d); err != nil {
					return nil, err
				}
			}
			return &d, nil
		}
		if attempt == 2 {
			return nil, ErrRecordBusy()
		}
		d := &Device{ID: newDevID, AppID: ra.App.ID, EnvID: ra.Env.ID, Fingerprint: in.Fingerprint, Status: DeviceActive,
			UserID: u.ID, LicenseIDs: []string{}, Components: slices.Clone(in.Components), LastSeenAt: &now, CreatedAt: now}
		created, err := t.InsertDevice(d)
		if err != nil {
			return nil, err
		}
		if created {
			return d, nil
		} // else another request created it meanwhile: read it again
	}
}

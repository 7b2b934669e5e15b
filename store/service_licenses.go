package store

import (
	"context"
	"fmt"
	"slices"
)

// The licence aggregate: a license, the bindings of its devices, its
// sessions and floating seats. Each change locks the license first
// (Tx.LockLicense), so that the device limit, the reset quota and a status
// change on another server come one after the other, then the device when
// it changes one.

// ExpireBatch is the most licenses one expiry transaction moves, so that a
// large backlog does not hold the writer (or its row locks) for long.
const ExpireBatch = 500

// SetLicenseStatus moves a license of the scope to status (License.SetStatus:
// revoked and banned are final; active reinstates only a suspended one).
// Leaving active revokes the license's sessions and frees its seats.
// Setting the status a license already has changes nothing. Returns
// validation_failed, not_found, invalid_transition.
func (sv *Service) SetLicenseStatus(ctx context.Context, s Scope, id, status string) (*License, error) {
	if err := LicenseStatus.Check(status); err != nil {
		return nil, err
	}
	var out *License
	err := sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		prev, err := t.LockLicense(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status, t.Now())
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.PutLicense(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = endUse(t, a, env, OwnerLicense, next.ID, change.Event); err != nil {
				return err
			}
		}
		out = &next
		return t.Audit(AuditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: Target{Type: "license", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

// endUse revokes the live sessions of a license or device of application a
// and environment env and releases its floating seats, for a status change
// named event; it returns how many sessions it revoked.
func endUse(t Tx, a *Application, env *Environment, of SessionOwner, id, event string) (int, error) {
	revoked, err := t.RevokeSessions(of, id, RevokedStatus)
	if err != nil {
		return 0, err
	}
	return revoked, endLeases(t, a, env, of, id, event)
}

// endLeases frees the live seats of a license or device, newest lease
// first, each with its lease.released entry naming the status change.
// Lapsed leases hold no seat: the sweep ends them, as any other. The
// deletion decides, so a lease released elsewhere meanwhile ends once.
func endLeases(t Tx, a *Application, env *Environment, of SessionOwner, id, event string) error {
	var held []*Lease
	var err error
	switch of {
	case OwnerLicense:
		held, err = t.LicenseLeases(id)
	case OwnerDevice:
		held, err = t.DeviceLeases(id)
	default:
		return fmt.Errorf("end leases: seats are held by licenses and devices, not owner %d", of)
	}
	if err != nil {
		return err
	}
	for _, l := range held {
		if !l.Live(t.Now()) {
			continue
		}
		gone, err := t.DeleteLiveLease(l.LicenseID, l.DeviceID, l.ID)
		if err != nil {
			return err
		}
		if gone == nil {
			continue
		}
		if err := t.Audit(LeaseEnded(EventLeaseReleased, a.OrgID, a.ID, env.ID, gone, map[string]any{"by": event})); err != nil {
			return err
		}
	}
	return nil
}

// ResetLicenseDevice unbinds a device from a license of the scope and
// revokes its sessions on that license; device_resets_remaining is
// untouched (the management reset is not counted). Returns
// validation_failed, not_found (also when the device is not bound).
func (sv *Service) ResetLicenseDevice(ctx context.Context, s Scope, licenseID, deviceID string) error {
	if err := CheckID("device_id", deviceID); err != nil {
		return err
	}
	return sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		prevL, err := t.LockLicense(env.ID, licenseID)
		if err != nil {
			return err
		}
		bound, err := t.IsBound(prevL.ID, deviceID)
		if err != nil {
			return err
		}
		if !bound {
			return Errorf(ECodeNotFound, "the device is not bound to this license")
		}
		prevD, err := t.LockDevice(env.ID, deviceID)
		if err != nil {
			return err
		}
		l, d := *prevL, *prevD
		n, err := unbind(t, prevL, &l, prevD, &d, RevokedDeviceReset)
		if err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventLicenseDeviceReset, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: Target{Type: "license", ID: l.ID},
			Metadata: map[string]any{"device_id": d.ID, "by": "management", "sessions_revoked": n}})
	})
}

// unbind takes the device d off the license l (copies of prevL and prevD
// the caller may have changed further), writes both and revokes the
// device's sessions on the license for reason; it returns how many it
// revoked. Both resets, the management's and the runtime's, end this way,
// and so does the device whose binding a re-bind moves to another.
func unbind(t Tx, prevL, l *License, prevD, d *Device, reason string) (int, error) {
	if _, err := t.UnbindDevice(l, d.ID); err != nil {
		return 0, err
	}
	l.UpdatedAt = t.Now()
	d.LicenseIDs = prevD.WithoutLicense(l.ID)
	if err := t.PutLicense(prevL, l); err != nil {
		return 0, err
	}
	if err := t.PutDevice(prevD, d); err != nil {
		return 0, err
	}
	return t.RevokeDeviceLicenseSessions(d.ID, l.ID, reason)
}

// ExpireLicenses stores status expired on every license that has lapsed
// (License.Lapsed), so that status filters and counts agree with the
// status reads derive, and returns how many it moved. It works in batches
// of one transaction each; the server runs it at start and every minute,
// and with several servers one that finds the pass taken skips the round
// (docs/design.md §12).
func (sv *Service) ExpireLicenses(ctx context.Context) (int, error) {
	total := 0
	for {
		n, more, err := sv.expireSome(ctx)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// expireSome expires up to ExpireBatch licenses in one transaction.
func (sv *Service) expireSome(ctx context.Context) (n int, more bool, err error) {
	err = sv.update(ctx, func(t Tx) error {
		n, more = 0, false
		if ok, err := t.PassLock("license expiry"); err != nil || !ok {
			return err
		}
		due, m, err := t.DueLicenses(ExpireBatch)
		if err != nil {
			return err
		}
		more = m
		for _, d := range due {
			prev := d.License
			if !prev.Lapsed(t.Now()) {
				continue
			}
			next := *prev
			next.Status, next.UpdatedAt = LicenseExpired, t.Now()
			if err := t.PutLicense(prev, &next); err != nil {
				return err
			}
			if err := t.Audit(AuditEvent{Event: EventLicenseExpired, OrgID: d.OrgID, AppID: next.AppID, EnvIDs: []string{next.EnvID},
				Target: Target{Type: "license", ID: next.ID}, Metadata: map[string]any{"expires_at": next.ExpiresAt}}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, more, err
}

// SetDeviceStatus moves a device of the scope to status. Blocking revokes
// every live session of the device and frees its seats; unblocking
// restores none (clients sign in again). Setting the status the device
// already has changes nothing. Returns validation_failed, not_found.
func (sv *Service) SetDeviceStatus(ctx context.Context, s Scope, id, status string) (*Device, error) {
	if err := DeviceStatus.Check(status); err != nil {
		return nil, err
	}
	var out *Device
	err := sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		prev, err := t.LockDevice(env.ID, id)
		if err != nil {
			return err
		}
		next := *prev
		change, err := next.SetStatus(status)
		if err != nil || change.Event == "" {
			out = prev
			return err
		}
		if err := t.PutDevice(prev, &next); err != nil {
			return err
		}
		revoked := 0
		if change.Revoke {
			if revoked, err = endUse(t, a, env, OwnerDevice, next.ID, change.Event); err != nil {
				return err
			}
		}
		out = &next
		return t.Audit(AuditEvent{Event: change.Event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID}, Target: Target{Type: "device", ID: next.ID},
			Metadata: map[string]any{"from": change.From, "to": change.To, "sessions_revoked": revoked}})
	})
	return out, err
}

// maxKeyDraws bounds the draws of a generation's keys: with 125 random bits
// a single collision is already astronomically unlikely, a run of them
// means the random source is broken.
const maxKeyDraws = 8

// GenerateLicenses creates in.Quantity licenses of a plan of the scope
// (quantity 0 means 1), inactive, with the plan's reset quota and the
// entitlements given on top of the plan's, and one license.created entry
// each, all in one transaction. The plan and the entitlements are held
// against a deletion racing the generation, and the tier's license limit
// is checked with the organization held. Returns validation_failed
// (quantity, unknown plan or entitlement), not_found, plan_limit_reached.
func (sv *Service) GenerateLicenses(ctx context.Context, s Scope, in GenerateLicensesInput) ([]*LicenseItem, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var out []*LicenseItem
	err = sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		p, err := t.LockPlan(a.ID, in.PlanID)
		if err != nil {
			return Unknown(err, "plan_id", "unknown plan %s", in.PlanID)
		}
		extra, err := CheckEntitlementIDs(in.EntitlementIDs, func(id string) error {
			_, err := t.LockEntitlement(a.ID, id)
			return err
		})
		if err != nil {
			return err
		}
		if err := sv.EnforceLimit(t, a.OrgID, ResLicenses, in.Quantity); err != nil {
			return err
		}
		now := t.Now()
		expires, err := in.Expiry(now)
		if err != nil {
			return err
		}
		keys, err := newLicenseKeys(t, in.Quantity)
		if err != nil {
			return err
		}
		out = make([]*LicenseItem, 0, in.Quantity)
		for _, k := range keys {
			l := License{ID: NewID(), AppID: a.ID, EnvID: env.ID, Key: k, PlanID: p.ID, Status: LicenseInactive,
				EntitlementIDs: slices.Clone(extra), ExpiresAt: expires,
				DeviceResetsRemaining: p.DeviceResetLimit, CreatedAt: now, UpdatedAt: now}
			out = append(out, &LicenseItem{License: l, PlanName: p.Name})
		}
		return t.InsertLicenses(a, out, AuditEvent{Event: EventLicenseCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Metadata: map[string]any{"plan_id": p.ID}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// newLicenseKeys draws n keys no license has, asking the storage about a
// whole draw at once. A key another server inserts in between fails the
// store's unique index instead.
func newLicenseKeys(t Tx, n int) ([]string, error) {
	keys := make([]string, 0, n)
	seen := make(map[string]bool, n)
	for range maxKeyDraws {
		var draw []string
		for len(keys)+len(draw) < n {
			if k := NewLicenseKey(); !seen[k] {
				seen[k] = true
				draw = append(draw, k)
			}
		}
		taken, err := t.LicenseKeysTaken(draw)
		if err != nil {
			return nil, err
		}
		for _, k := range draw {
			if !taken[k] {
				keys = append(keys, k)
			}
		}
		if len(keys) == n {
			return keys, nil
		}
	}
	return nil, Errorf(ECodeInternal, "could not generate a unique license key")
}

// ReleaseLicenseLease implements LicenseLeases: the seat is freed at once,
// with its lease.released entry naming the management API.
func (sv *Service) ReleaseLicenseLease(ctx context.Context, s Scope, licenseID, leaseID string) error {
	return sv.update(ctx, func(t Tx) error {
		a, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		if _, err := t.License(env.ID, licenseID); err != nil {
			return err
		}
		l, err := t.DeleteLiveLease(licenseID, "", leaseID)
		if err != nil {
			return err
		}
		if l == nil {
			return ErrLeaseNotFound()
		}
		return t.Audit(LeaseEnded(EventLeaseReleased, a.OrgID, a.ID, env.ID, l, map[string]any{"by": "management"}))
	})
}

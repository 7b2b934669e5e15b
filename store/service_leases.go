package store

import (
	"context"
	"time"
)

// LeaseTx is the part of RuntimeTx that the floating seats use
// (docs/design.md §13).
type LeaseTx interface {
	// HoldLicense returns license l read again and held, so that the
	// checkouts of one license on every server count its seats one after
	// the other; a storage whose writes are serialized already (bbolt's
	// one writer) returns l. Returns not_found when it is gone.
	HoldLicense(l *License) (*License, error)
	// InsertLease writes a new lease of ra's environment.
	InsertLease(ra *RuntimeApp, l *Lease) error
	// ExtendLease moves the expiry of lease id to exp while it is live and
	// held by the device on the license, and returns it; nil (nothing
	// written) when there is no such live lease.
	ExtendLease(id, licenseID, deviceID string, exp time.Time) (*Lease, error)
	// ExpireLease removes lease id if it has lapsed and returns it; nil
	// when it is gone or live.
	ExpireLease(id string) (*Lease, error)
	// DeleteLapsedLeases removes up to limit lapsed leases, oldest expiry
	// first, and returns them; leases another server's sweep holds are
	// left to it.
	DeleteLapsedLeases(limit int) ([]*StoredLease, error)
}

// StoredLease is a lease with the organization, application and
// environment its entries name.
type StoredLease struct {
	Lease
	OrgID string
	AppID string
	EnvID string
}

// SweepLeases removes up to limit lapsed leases, each with its
// lease.expired entry by the system. Every server runs it; one that finds
// the pass held by another skips the round, and a storage that can tell
// nothing lapsed (SweepChecker) opens no write.
func (rs *RuntimeService) SweepLeases(ctx context.Context, limit int) (int, error) {
	return sweep(ctx, rs.storage, SweepOfLeases, limit, rs.update, func(t RuntimeTx, limit int) (int, error) {
		t.ActAs(ActorSystem, "")
		gone, err := t.DeleteLapsedLeases(limit)
		if err != nil {
			return 0, err
		}
		for _, l := range gone {
			if err := t.Audit(LeaseEnded(EventLeaseExpired, l.OrgID, l.AppID, l.EnvID, &l.Lease, nil)); err != nil {
				return 0, err
			}
		}
		return len(gone), nil
	})
}

// leaseTTL is how long a checkout or a heartbeat holds the seat.
func leaseTTL(p *Plan) time.Duration {
	s := p.LeaseSeconds
	if s == 0 {
		s = DefaultLeaseSeconds
	}
	return time.Duration(s) * time.Second
}

// CheckoutLease gives the device of an activation session a seat on its
// license, or extends the seat it holds (docs/design.md §13). The license
// is held before its seats are counted, so N parallel checkouts on M seats
// grant exactly M on every server. Returns validation_failed,
// stale_timestamp, nonce_reused, session_invalid, not_activation_session,
// seats_exhausted.
func (rs *RuntimeService) CheckoutLease(ctx context.Context, c RuntimeClient, accessToken string, rp Replay) (*LeaseGrant, error) {
	if err := rp.Check(); err != nil {
		return nil, err
	}
	newID := NewID()
	var out *LeaseGrant
	err := rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		ra, err := t.ActiveApp(c)
		if err != nil {
			return err
		}
		if err := t.ConsumeNonce(ra, rp, "license"); err != nil {
			return err
		}
		v, err := heldActivationSession(t, c, ra, accessToken)
		if err != nil {
			return err
		}
		out, err = checkout(t, ra, v, newID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// heldActivationSession is activationSession with the session's license
// held, checked again as held.
func heldActivationSession(t RuntimeTx, c RuntimeClient, ra *RuntimeApp, accessToken string) (*SessionView, error) {
	v, err := activationSession(t, c, ra, accessToken)
	if err != nil {
		return nil, err
	}
	held, err := t.HoldLicense(v.License)
	if ErrorCode(err) == ECodeNotFound {
		return nil, ErrSessionInvalid(ReasonTokenInvalid)
	}
	if err != nil {
		return nil, err
	}
	if held != v.License {
		hv := *v
		hv.License = held
		if reason := hv.Reason(ra, t.Now(), true); reason != "" {
			return nil, ErrSessionInvalid(reason)
		}
		v = &hv
	}
	return v, nil
}

// checkout counts the live seats of the session's license and extends the
// device's own or starts a new one as newID.
func checkout(t RuntimeTx, ra *RuntimeApp, v *SessionView, newID string) (*LeaseGrant, error) {
	l, dev, now := v.License, v.Device, t.Now()
	t.ActAs(ActorLicense, l.ID)
	p := PlanOrDefaults(v.Plan)
	exp := now.Add(leaseTTL(p))
	all, err := t.LicenseLeases(l.ID)
	if err != nil {
		return nil, err
	}
	live, first := 0, time.Time{}
	var own *Lease
	var lapsed []string
	for _, ls := range all {
		if !ls.Live(now) {
			if ls.DeviceID == dev.ID {
				lapsed = append(lapsed, ls.ID)
			}
			continue
		}
		live++
		if first.IsZero() || ls.ExpiresAt.Before(first) {
			first = ls.ExpiresAt
		}
		if ls.DeviceID == dev.ID {
			own = ls
		}
	}
	if own != nil {
		// The device already holds a seat: the same lease, extended.
		got, err := t.ExtendLease(own.ID, l.ID, dev.ID, exp)
		if err != nil {
			return nil, err
		}
		if got != nil {
			return &LeaseGrant{Lease: *got, SeatsInUse: live, MaxConcurrent: p.MaxConcurrent}, nil
		}
		// Swept between the read and the write: the seat is free again.
		live--
	}
	if p.MaxConcurrent > 0 && live >= p.MaxConcurrent {
		return nil, ErrSeatsExhausted(p.MaxConcurrent, first.Sub(now))
	}
	// The device's lapsed lease of the license ends as the sweep would end
	// it, before its new one: one lease a device and license.
	for _, id := range lapsed {
		gone, err := t.ExpireLease(id)
		if err != nil {
			return nil, err
		}
		if gone != nil {
			t.ActAs(ActorSystem, "")
			if err := t.Audit(LeaseEnded(EventLeaseExpired, ra.App.OrgID, ra.App.ID, ra.Env.ID, gone, nil)); err != nil {
				return nil, err
			}
			t.ActAs(ActorLicense, l.ID)
		}
	}
	ls := &Lease{ID: newID, LicenseID: l.ID, DeviceID: dev.ID, Fingerprint: dev.Fingerprint, ExpiresAt: exp, CreatedAt: now}
	if err := t.InsertLease(ra, ls); err != nil {
		return nil, err
	}
	return &LeaseGrant{Lease: *ls, SeatsInUse: live + 1, MaxConcurrent: p.MaxConcurrent},
		t.Audit(AuditEvent{Event: EventLeaseStarted, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"lease_id": newID, "device_id": dev.ID,
				"expires_at": exp.Format(time.RFC3339Nano), "seats_in_use": live + 1}})
}

// sessionLease starts a heartbeat or a release: the client's active
// application and the activation session of in's token, whose license
// then acts.
func sessionLease(t RuntimeTx, c RuntimeClient, in LeaseInput) (*RuntimeApp, *SessionView, error) {
	ra, err := t.ActiveApp(c)
	if err != nil {
		return nil, nil, err
	}
	v, err := activationSession(t, c, ra, in.AccessToken)
	if err != nil {
		return nil, nil, err
	}
	t.ActAs(ActorLicense, v.License.ID)
	return ra, v, nil
}

// HeartbeatLease extends a live lease of the session's device by the
// plan's lease_seconds. Returns session_invalid, not_activation_session,
// lease_not_found.
func (rs *RuntimeService) HeartbeatLease(ctx context.Context, c RuntimeClient, in LeaseInput) (*Lease, error) {
	var out *Lease
	err := rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		_, v, err := sessionLease(t, c, in)
		if err != nil {
			return err
		}
		exp := t.Now().Add(leaseTTL(PlanOrDefaults(v.Plan)))
		if out, err = t.ExtendLease(in.LeaseID, v.License.ID, v.Device.ID, exp); err == nil && out == nil {
			err = ErrLeaseNotFound()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReleaseLease frees the seat of a live lease of the session's device,
// with its lease.released entry. Returns session_invalid,
// not_activation_session, lease_not_found.
func (rs *RuntimeService) ReleaseLease(ctx context.Context, c RuntimeClient, in LeaseInput) error {
	return rs.update(ctx, func(t RuntimeTx) error {
		ra, v, err := sessionLease(t, c, in)
		if err != nil {
			return err
		}
		gone, err := t.DeleteLiveLease(v.License.ID, v.Device.ID, in.LeaseID)
		if err != nil {
			return err
		}
		if gone == nil {
			return ErrLeaseNotFound()
		}
		return t.Audit(LeaseEnded(EventLeaseReleased, ra.App.OrgID, ra.App.ID, ra.Env.ID, gone, map[string]any{"by": "runtime"}))
	})
}

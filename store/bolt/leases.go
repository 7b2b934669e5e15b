package bolt

import (
	"bytes"
	"context"
	"time"

	"licensectl/store"
)

// Floating seat buckets (docs/design.md §13).
var (
	bLeases        = []byte("leases")            // id → leaseRecord
	bLeasesLicense = []byte("leases_by_license") // license|lease
	bLeasesDevice  = []byte("leases_by_device")  // device|lease
	bLeasesExpiry  = []byte("leases_by_expiry")  // expiry unix nanos|lease, walked by the sweeper
)

// leaseRecord is a stored lease with what its events need.
type leaseRecord struct {
	OrgID       string    `json:"org_id"`
	AppID       string    `json:"app_id"`
	EnvID       string    `json:"env_id"`
	LicenseID   string    `json:"license_id"`
	DeviceID    string    `json:"device_id"`
	Fingerprint string    `json:"fingerprint"`
	ExpiresAt   time.Time `json:"expires_at"`
	CreatedAt   time.Time `json:"created_at"`
}

func (rec *leaseRecord) lease(id string) *store.Lease {
	return &store.Lease{ID: id, LicenseID: rec.LicenseID, DeviceID: rec.DeviceID, Fingerprint: rec.Fingerprint,
		ExpiresAt: rec.ExpiresAt, CreatedAt: rec.CreatedAt}
}

// putLease writes a lease; prevExpiry is the expiry it is indexed under
// (zero for a new lease).
func (t *txn) putLease(id string, rec *leaseRecord, prevExpiry time.Time) error {
	if !prevExpiry.IsZero() {
		if err := t.tx.Bucket(bLeasesExpiry).Delete(key(timeKey(prevExpiry), idb(id))); err != nil {
			return err
		}
	} else {
		if err := t.index(bLeasesLicense, idb(rec.LicenseID), id); err != nil {
			return err
		}
		if err := t.index(bLeasesDevice, idb(rec.DeviceID), id); err != nil {
			return err
		}
	}
	if err := t.tx.Bucket(bLeasesExpiry).Put(key(timeKey(rec.ExpiresAt), idb(id)), []byte{}); err != nil {
		return err
	}
	return t.put(bLeases, id, rec)
}

// dropLease removes a lease and its index entries, with its event: event is
// lease_released or lease_expired, metadata says by whom or why.
func (t *txn) dropLease(id string, rec *leaseRecord, event string, meta map[string]any) error {
	if err := t.removeLease(id, rec); err != nil {
		return err
	}
	return t.audit(store.LeaseEnded(event, rec.OrgID, rec.AppID, rec.EnvID, rec.lease(id), meta))
}

// removeLease removes a lease and its index entries.
func (t *txn) removeLease(id string, rec *leaseRecord) error {
	if err := t.tx.Bucket(bLeasesExpiry).Delete(key(timeKey(rec.ExpiresAt), idb(id))); err != nil {
		return err
	}
	if err := t.unindex(bLeasesLicense, idb(rec.LicenseID), id); err != nil {
		return err
	}
	if err := t.unindex(bLeasesDevice, idb(rec.DeviceID), id); err != nil {
		return err
	}
	return t.del(bLeases, id)
}

// DeleteLiveLease implements store.Tx.
func (t *txn) DeleteLiveLease(licenseID, leaseID string) (*store.Lease, error) {
	rec := new(leaseRecord)
	if ok, err := t.get(bLeases, leaseID, rec); err != nil || !ok || rec.LicenseID != licenseID || !rec.ExpiresAt.After(t.now) {
		return nil, err
	}
	return rec.lease(leaseID), t.removeLease(leaseID, rec)
}

// leasesOf returns the leases an index lists under owner (a license or a
// device), live or not, with their ids.
func (t *txn) leasesOf(index []byte, owner string) ([]string, []*leaseRecord, error) {
	idList := t.all(index, idb(owner))
	recs := make([]*leaseRecord, 0, len(idList))
	for _, id := range idList {
		rec := new(leaseRecord)
		if err := t.mustGet(bLeases, id, "lease", rec); err != nil {
			return nil, nil, err
		}
		recs = append(recs, rec)
	}
	return idList, recs, nil
}

// endLeases releases every lease an index lists under owner: a license
// suspended, revoked or banned, or a device blocked, frees its seats.
func (t *txn) endLeases(index []byte, owner, why string) (int, error) {
	idList, recs, err := t.leasesOf(index, owner)
	if err != nil {
		return 0, err
	}
	for i, id := range idList {
		if err := t.dropLease(id, recs[i], store.EventLeaseReleased, map[string]any{"by": why}); err != nil {
			return 0, err
		}
	}
	return len(idList), nil
}

// liveLease is the live lease of the device on the license, or "".
func (t *txn) liveLease(licenseID, deviceID string) (string, *leaseRecord, error) {
	idList, recs, err := t.leasesOf(bLeasesDevice, deviceID)
	if err != nil {
		return "", nil, err
	}
	for i, rec := range recs {
		if rec.LicenseID == licenseID && rec.ExpiresAt.After(t.now) {
			return idList[i], rec, nil
		}
	}
	return "", nil, nil
}

// leaseSession is the activation session of an access token that passes
// the cascade, else session_invalid.
func (r *Runtime) leaseSession(t *txn, ra *store.RuntimeApp, accessToken string) (*sessionView, error) {
	var s *sessionRecord
	if accessToken != "" {
		var err error
		if s, err = r.findByAccess(t, accessToken, store.HashSecret(accessToken)); err != nil {
			return nil, err
		}
	}
	reason, v, err := r.cascade(t, ra, s, true)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return nil, store.ErrSessionInvalid(reason)
	}
	if v.lic == nil {
		return nil, store.ErrNotActivationSession()
	}
	return v, nil
}

// leasePlan is the plan of a license, with the defaults when it is gone.
func (r *Runtime) leasePlan(t *txn, l *store.License) (*store.Plan, error) {
	p, err := cachedGet[store.Plan](r.cache, t, tagPlan, bPlans, idb(l.PlanID))
	if err != nil || p != nil {
		return p, err
	}
	return &store.Plan{LeaseSeconds: store.DefaultLeaseSeconds}, nil
}

func leaseTTL(p *store.Plan) time.Duration {
	s := p.LeaseSeconds
	if s == 0 {
		s = store.DefaultLeaseSeconds
	}
	return time.Duration(s) * time.Second
}

func errLeaseNotFound() error {
	return store.ErrLeaseNotFound()
}

// CheckoutLease implements store.Leases. Checkouts of one license are
// serialized by the single writer, so N parallel ones on M seats grant
// exactly M.
func (r *Runtime) CheckoutLease(ctx context.Context, c store.RuntimeClient, accessToken string, rp store.Replay) (*store.LeaseGrant, error) {
	if err := rp.Check(); err != nil {
		return nil, err
	}
	newID := store.NewID()
	var out *store.LeaseGrant
	err := r.softBatch(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		if err := r.consumeNonce(t, ra, rp, "license"); err != nil {
			return err
		}
		v, err := r.leaseSession(t, ra, accessToken)
		if err != nil {
			return err
		}
		t.asActor(store.ActorLicense, v.lic.ID)
		p, err := r.leasePlan(t, v.lic)
		if err != nil {
			return err
		}
		ttl := leaseTTL(p)
		idList, recs, err := t.leasesOf(bLeasesLicense, v.lic.ID)
		if err != nil {
			return err
		}
		live, first := 0, time.Time{}
		for i, rec := range recs {
			if !rec.ExpiresAt.After(t.now) {
				continue
			}
			live++
			if first.IsZero() || rec.ExpiresAt.Before(first) {
				first = rec.ExpiresAt
			}
			if rec.DeviceID == v.dev.ID {
				// The device already holds a seat: the same lease, extended.
				next := *rec
				next.ExpiresAt = t.now.Add(ttl)
				if err := t.putLease(idList[i], &next, rec.ExpiresAt); err != nil {
					return err
				}
				out = &store.LeaseGrant{Lease: *next.lease(idList[i]), SeatsInUse: live, MaxConcurrent: p.MaxConcurrent}
			}
		}
		if out != nil {
			out.SeatsInUse = live
			return nil
		}
		if p.MaxConcurrent > 0 && live >= p.MaxConcurrent {
			return store.ErrSeatsExhausted(p.MaxConcurrent, first.Sub(t.now))
		}
		rec := &leaseRecord{OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvID: ra.Env.ID, LicenseID: v.lic.ID, DeviceID: v.dev.ID,
			Fingerprint: v.dev.Fingerprint, ExpiresAt: t.now.Add(ttl), CreatedAt: t.now}
		if err := t.putLease(newID, rec, time.Time{}); err != nil {
			return err
		}
		out = &store.LeaseGrant{Lease: *rec.lease(newID), SeatsInUse: live + 1, MaxConcurrent: p.MaxConcurrent}
		return t.audit(auditEvent{Event: store.EventLeaseStarted, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: store.Target{Type: "license", ID: v.lic.ID}, Metadata: map[string]any{"lease_id": newID, "device_id": v.dev.ID,
				"expires_at": rec.ExpiresAt.Format(time.RFC3339Nano), "seats_in_use": live + 1}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sessionLease finds the session's live lease of id, else lease_not_found.
func (r *Runtime) sessionLease(t *txn, c store.RuntimeClient, in store.LeaseInput) (*sessionView, *leaseRecord, error) {
	ra, err := r.activeApp(t, c)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.leaseSession(t, ra, in.AccessToken)
	if err != nil {
		return nil, nil, err
	}
	rec := new(leaseRecord)
	if idb(in.LeaseID) == nil {
		return nil, nil, errLeaseNotFound()
	}
	if ok, err := t.get(bLeases, in.LeaseID, rec); err != nil {
		return nil, nil, err
	} else if !ok || rec.LicenseID != v.lic.ID || rec.DeviceID != v.dev.ID || !rec.ExpiresAt.After(t.now) {
		return nil, nil, errLeaseNotFound()
	}
	t.asActor(store.ActorLicense, v.lic.ID)
	return v, rec, nil
}

// HeartbeatLease implements store.Leases.
func (r *Runtime) HeartbeatLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) (*store.Lease, error) {
	var out *store.Lease
	err := r.softBatch(ctx, func(t *txn) error {
		out = nil
		v, rec, err := r.sessionLease(t, c, in)
		if err != nil {
			return err
		}
		p, err := r.leasePlan(t, v.lic)
		if err != nil {
			return err
		}
		next := *rec
		next.ExpiresAt = t.now.Add(leaseTTL(p))
		out = next.lease(in.LeaseID)
		return t.putLease(in.LeaseID, &next, rec.ExpiresAt)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReleaseLease implements store.Leases.
func (r *Runtime) ReleaseLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) error {
	return r.softBatch(ctx, func(t *txn) error {
		_, rec, err := r.sessionLease(t, c, in)
		if err != nil {
			return err
		}
		return t.dropLease(in.LeaseID, rec, store.EventLeaseReleased, map[string]any{"by": "runtime"})
	})
}

// SweepLeases implements store.RuntimeBackend.
func (r *Runtime) SweepLeases(ctx context.Context, limit int) (int, error) {
	if due, err := r.db.due(ctx, bLeasesExpiry); err != nil || !due {
		return 0, err
	}
	n := 0
	err := r.db.update(ctx, func(t *txn) error {
		n = 0
		now := timeKey(t.now)
		c := t.tx.Bucket(bLeasesExpiry).Cursor()
		for k, _ := c.First(); k != nil && n < limit && bytes.Compare(k[:8], now) <= 0; k, _ = c.First() {
			id := ids(k[8:])
			rec := new(leaseRecord)
			if err := t.mustGet(bLeases, id, "lease", rec); err != nil {
				return err
			}
			t.asActor(store.ActorSystem, "")
			if err := t.dropLease(id, rec, store.EventLeaseExpired, nil); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// ListLeases implements store.LicenseLeases.
func (db *DB) ListLeases(ctx context.Context, s store.Scope, licenseID string) ([]*store.Lease, error) {
	out := []*store.Lease{}
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if _, err := t.license(env.ID, licenseID); err != nil {
			return err
		}
		idList, recs, err := t.leasesOf(bLeasesLicense, licenseID)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			if rec.ExpiresAt.After(t.now) {
				out = append(out, rec.lease(idList[i]))
			}
		}
		return nil
	})
	return out, err
}

// leaseReason is lease_required when the session's license has floating
// seats and its device holds no live lease, else "" with the lease (nil
// for a license without seats).
func (r *Runtime) leaseReason(t *txn, v *sessionView) (string, *leaseRecord, error) {
	p, err := r.leasePlan(t, v.lic)
	if err != nil || p.MaxConcurrent == 0 {
		return "", nil, err
	}
	_, rec, err := t.liveLease(v.lic.ID, v.dev.ID)
	if err != nil || rec == nil {
		return store.ReasonLeaseRequired, nil, err
	}
	return "", rec, nil
}

// purgeLeases removes a deleted license's leases without events: the
// application they belonged to is gone.
func (t *txn) purgeLeases(licenseID string) error {
	idList, recs, err := t.leasesOf(bLeasesLicense, licenseID)
	if err != nil {
		return err
	}
	for i, id := range idList {
		if err := t.tx.Bucket(bLeasesExpiry).Delete(key(timeKey(recs[i].ExpiresAt), idb(id))); err != nil {
			return err
		}
		if err := t.unindex(bLeasesDevice, idb(recs[i].DeviceID), id); err != nil {
			return err
		}
		if err := t.del(bLeases, id); err != nil {
			return err
		}
	}
	return t.dropAll(bLeasesLicense, idb(licenseID))
}

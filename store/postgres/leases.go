package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"licensectl/store"
)

// Floating seats (docs/design.md §13) are rows of leases. A checkout locks
// its license's row before it counts the live leases, so that the seat count
// holds across servers: two checkouts of one license on two servers come
// one after the other, and the second counts the first's lease.

var _ store.LicenseLeases = (*DB)(nil)

// leaseRecord is a stored lease with what its events need.
type leaseRecord struct {
	store.Lease
	OrgID string
	AppID string
	EnvID string
}

const leaseColumns = `id::text, org_id::text, app_id::text, env_id::text, license_id::text, device_id::text, fingerprint, expires_at, created_at`

// leasesWhere loads the leases matching where, newest first.
func (t *txn) leasesWhere(where string, args ...any) ([]*leaseRecord, error) {
	return t.scanLeases(`SELECT `+leaseColumns+` FROM leases WHERE `+where+` ORDER BY id DESC`, args...)
}

// scanLeases runs a query returning leaseColumns. Times read back in the
// clock's zone, as the store wrote them.
func (t *txn) scanLeases(sql string, args ...any) ([]*leaseRecord, error) {
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*leaseRecord
	for rows.Next() {
		r := new(leaseRecord)
		if err := rows.Scan(&r.ID, &r.OrgID, &r.AppID, &r.EnvID, &r.LicenseID, &r.DeviceID, &r.Fingerprint, &r.ExpiresAt, &r.CreatedAt); err != nil {
			return nil, err
		}
		r.ExpiresAt, r.CreatedAt = r.ExpiresAt.In(t.now.Location()), r.CreatedAt.In(t.now.Location())
		out = append(out, r)
	}
	return out, rows.Err()
}

// dropLeases deletes the leases matching where, each with its event: event
// is lease_released or lease_expired, meta says by whom or why. The DELETE
// decides: a lease another server deleted first is not dropped twice.
func (t *txn) dropLeases(event string, meta map[string]any, where string, args ...any) ([]*leaseRecord, error) {
	gone, err := t.scanLeases(`DELETE FROM leases WHERE `+where+` RETURNING `+leaseColumns, args...)
	if err != nil {
		return nil, err
	}
	// Events in the order the bbolt store writes them: newest lease first.
	slices.SortFunc(gone, func(a, b *leaseRecord) int { return strings.Compare(b.ID, a.ID) })
	for _, r := range gone {
		if err := t.audit(store.LeaseEnded(event, r.OrgID, r.AppID, r.EnvID, &r.Lease, meta)); err != nil {
			return nil, err
		}
	}
	return gone, nil
}

// DeleteLiveLease implements store.Tx.
func (t *txn) DeleteLiveLease(licenseID, leaseID string) (*store.Lease, error) {
	if uuidOrNil(leaseID) == nil {
		return nil, nil
	}
	gone, err := t.scanLeases(`DELETE FROM leases WHERE id = $1 AND license_id = $2 AND expires_at > $3 RETURNING `+leaseColumns,
		leaseID, licenseID, t.now)
	if err != nil || len(gone) == 0 {
		return nil, err
	}
	return &gone[0].Lease, nil
}

// endLeases releases every lease of an owner (column license_id or
// device_id): a license suspended, revoked or banned, or a device blocked,
// frees its seats.
func (t *txn) endLeases(column, owner, why string) (int, error) {
	if column != "license_id" && column != "device_id" {
		panic("endLeases: no such owner column " + column)
	}
	gone, err := t.dropLeases(store.EventLeaseReleased, map[string]any{"by": why}, column+` = $1`, uuidOrNil(owner))
	return len(gone), err
}

// leasePlan is the plan of a license, with the defaults when it is gone.
func (t *txn) leasePlan(l *store.License) (*store.Plan, error) {
	p, err := doc[store.Plan](t, `SELECT doc FROM plans WHERE id = $1`, uuidOrNil(l.PlanID))
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

// CheckoutLease implements store.Leases. The license's row lock serializes
// the checkouts of one license on every server, so N parallel ones on M
// seats grant exactly M.
func (r *Runtime) CheckoutLease(ctx context.Context, c store.RuntimeClient, accessToken string, rp store.Replay) (*store.LeaseGrant, error) {
	if err := rp.Check(); err != nil {
		return nil, err
	}
	var out *store.LeaseGrant
	err := r.softUpdate(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		if err := r.consumeNonce(t, ra, rp, "license"); err != nil {
			return err
		}
		v, err := t.licLeaseSession(ra, accessToken, true)
		if err != nil {
			return err
		}
		t.rtActor(store.ActorLicense, v.lic.ID)
		p, err := t.leasePlan(v.lic)
		if err != nil {
			return err
		}
		ttl := leaseTTL(p)
		all, err := t.leasesWhere(`license_id = $1`, v.lic.ID)
		if err != nil {
			return err
		}
		live, first := 0, time.Time{}
		var own, ownExpired *leaseRecord
		for _, l := range all {
			if l.DeviceID == v.dev.ID {
				if l.ExpiresAt.After(t.now) {
					own = l
				} else {
					ownExpired = l
				}
			}
			if !l.ExpiresAt.After(t.now) {
				continue
			}
			live++
			if first.IsZero() || l.ExpiresAt.Before(first) {
				first = l.ExpiresAt
			}
		}
		if own != nil {
			// The device already holds a seat: the same lease, extended.
			own.ExpiresAt = t.now.Add(ttl)
			if _, err := t.exec(`UPDATE leases SET expires_at = $2 WHERE id = $1`, own.ID, own.ExpiresAt); err != nil {
				return err
			}
			out = &store.LeaseGrant{Lease: own.Lease, SeatsInUse: live, MaxConcurrent: p.MaxConcurrent}
			return nil
		}
		if p.MaxConcurrent > 0 && live >= p.MaxConcurrent {
			return store.ErrSeatsExhausted(p.MaxConcurrent, first.Sub(t.now))
		}
		if ownExpired != nil {
			// One lease per device and license (leases_license_device_key):
			// the device's lapsed lease ends as the sweeper would end it.
			if err := t.expireLease(ownExpired.ID); err != nil {
				return err
			}
		}
		l := &store.Lease{ID: store.NewID(), LicenseID: v.lic.ID, DeviceID: v.dev.ID, Fingerprint: v.dev.Fingerprint,
			ExpiresAt: t.now.Add(ttl), CreatedAt: t.now}
		if _, err := t.exec(`INSERT INTO leases (id, org_id, app_id, env_id, license_id, device_id, fingerprint, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			l.ID, ra.App.OrgID, ra.App.ID, ra.Env.ID, l.LicenseID, l.DeviceID, l.Fingerprint, l.ExpiresAt, l.CreatedAt); err != nil {
			return err
		}
		out = &store.LeaseGrant{Lease: *l, SeatsInUse: live + 1, MaxConcurrent: p.MaxConcurrent}
		return t.audit(auditEvent{Event: store.EventLeaseStarted, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: store.Target{Type: "license", ID: v.lic.ID}, Metadata: map[string]any{"lease_id": l.ID, "device_id": v.dev.ID,
				"expires_at": l.ExpiresAt.Format(time.RFC3339Nano), "seats_in_use": live + 1}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// expireLease ends one lapsed lease with its lease_expired event, by the
// system as the sweeper does.
func (t *txn) expireLease(id string) error {
	ctx := t.ctx
	t.rtActor(store.ActorSystem, "")
	_, err := t.dropLeases(store.EventLeaseExpired, nil, `id = $1 AND expires_at <= $2`, id, t.now)
	t.ctx = ctx
	return err
}

// sessionLease checks the session and returns the live lease id of its
// device on its license, else lease_not_found.
func (r *Runtime) sessionLease(t *txn, c store.RuntimeClient, in store.LeaseInput) (*licSession, error) {
	ra, err := r.activeApp(t, c)
	if err != nil {
		return nil, err
	}
	v, err := t.licLeaseSession(ra, in.AccessToken, false)
	if err != nil {
		return nil, err
	}
	if uuidOrNil(in.LeaseID) == nil {
		return nil, store.ErrLeaseNotFound()
	}
	t.rtActor(store.ActorLicense, v.lic.ID)
	return v, nil
}

// HeartbeatLease implements store.Leases: one conditional UPDATE extends
// the lease only while it is live.
func (r *Runtime) HeartbeatLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) (*store.Lease, error) {
	var out *store.Lease
	err := r.softUpdate(ctx, func(t *txn) error {
		out = nil
		v, err := r.sessionLease(t, c, in)
		if err != nil {
			return err
		}
		p, err := t.leasePlan(v.lic)
		if err != nil {
			return err
		}
		exp := t.now.Add(leaseTTL(p))
		got, err := t.scanLeases(`UPDATE leases SET expires_at = $5 WHERE id = $1 AND license_id = $2 AND device_id = $3 AND expires_at > $4
			RETURNING `+leaseColumns, in.LeaseID, v.lic.ID, v.dev.ID, t.now, exp)
		if err != nil {
			return err
		}
		if len(got) == 0 {
			return store.ErrLeaseNotFound()
		}
		out = &got[0].Lease
		out.ExpiresAt = exp
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReleaseLease implements store.Leases.
func (r *Runtime) ReleaseLease(ctx context.Context, c store.RuntimeClient, in store.LeaseInput) error {
	return r.softUpdate(ctx, func(t *txn) error {
		v, err := r.sessionLease(t, c, in)
		if err != nil {
			return err
		}
		gone, err := t.dropLeases(store.EventLeaseReleased, map[string]any{"by": "runtime"},
			`id = $1 AND license_id = $2 AND device_id = $3 AND expires_at > $4`, in.LeaseID, v.lic.ID, v.dev.ID, t.now)
		if err == nil && len(gone) == 0 {
			err = store.ErrLeaseNotFound()
		}
		return err
	})
}

// SweepLeases implements store.RuntimeBackend: up to limit lapsed leases,
// oldest expiry first, each with its lease_expired event. Every server runs
// it; one that finds the pass's lock held by another skips the round.
func (r *Runtime) SweepLeases(ctx context.Context, limit int) (int, error) {
	n := 0
	err := r.db.update(ctx, func(t *txn) error {
		n = 0
		if ok, err := t.passLock("lease sweep"); err != nil || !ok {
			return err
		}
		t.rtActor(store.ActorSystem, "")
		gone, err := t.dropLeases(store.EventLeaseExpired, nil,
			`id IN (SELECT id FROM leases WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) AND expires_at <= $1`,
			t.now, limit)
		n = len(gone)
		return err
	})
	return n, err
}

// ListLeases implements store.LicenseLeases: the live leases, newest first.
func (db *DB) ListLeases(ctx context.Context, s store.Scope, licenseID string) ([]*store.Lease, error) {
	out := []*store.Lease{}
	err := db.view(ctx, func(t *txn) error {
		out = []*store.Lease{}
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		if _, err := t.license(env.ID, licenseID); err != nil {
			return err
		}
		rows, err := t.leasesWhere(`license_id = $1 AND expires_at > $2`, licenseID, t.now)
		for _, r := range rows {
			out = append(out, &r.Lease)
		}
		return err
	})
	return out, err
}

package postgres

import (
	"cmp"
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
type leaseRecord = store.StoredLease

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

// DeleteLiveLease implements store.Tx.
func (t *txn) DeleteLiveLease(licenseID, deviceID, leaseID string) (*store.Lease, error) {
	if uuidOrNil(leaseID) == nil {
		return nil, nil
	}
	gone, err := t.scanLeases(`DELETE FROM leases WHERE id = $1 AND license_id = $2 AND ($4 = '' OR device_id::text = $4) AND expires_at > $3
		RETURNING `+leaseColumns, leaseID, licenseID, t.now, deviceID)
	if err != nil || len(gone) == 0 {
		return nil, err
	}
	return &gone[0].Lease, nil
}

// HoldLicense implements store.RuntimeTx: the license's row lock, which a
// checkout takes before it counts the seats.
func (t *runtimeTxn) HoldLicense(l *store.License) (*store.License, error) {
	return t.lockLicense("", l.ID)
}

// LicenseLeases implements store.Tx, newest first as bbolt's index.
func (t *txn) LicenseLeases(licenseID string) ([]*store.Lease, error) {
	return t.leasesListed(`license_id = $1`, uuidOrNil(licenseID))
}

// DeviceLeases implements store.Tx, newest first as bbolt's index.
func (t *txn) DeviceLeases(deviceID string) ([]*store.Lease, error) {
	return t.leasesListed(`device_id = $1`, uuidOrNil(deviceID))
}

// leasesListed is leasesWhere as the orchestration reads leases.
func (t *txn) leasesListed(where string, args ...any) ([]*store.Lease, error) {
	rows, err := t.leasesWhere(where, args...)
	out := make([]*store.Lease, len(rows))
	for i, r := range rows {
		out[i] = &r.Lease
	}
	return out, err
}

// InsertLease implements store.RuntimeTx.
func (t *runtimeTxn) InsertLease(ra *store.RuntimeApp, l *store.Lease) error {
	_, err := t.exec(`INSERT INTO leases (id, org_id, app_id, env_id, license_id, device_id, fingerprint, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		l.ID, ra.App.OrgID, ra.App.ID, ra.Env.ID, l.LicenseID, l.DeviceID, l.Fingerprint, l.ExpiresAt, l.CreatedAt)
	return err
}

// ExtendLease implements store.RuntimeTx: one conditional UPDATE extends
// the lease only while it is live.
func (t *runtimeTxn) ExtendLease(id, licenseID, deviceID string, exp time.Time) (*store.Lease, error) {
	if uuidOrNil(id) == nil {
		return nil, nil
	}
	got, err := t.scanLeases(`UPDATE leases SET expires_at = $5 WHERE id = $1 AND license_id = $2 AND device_id = $3 AND expires_at > $4
		RETURNING `+leaseColumns, id, licenseID, deviceID, t.now, exp)
	if err != nil || len(got) == 0 {
		return nil, err
	}
	// The expiry as given, not as the column's microseconds round it.
	got[0].ExpiresAt = exp
	return &got[0].Lease, nil
}

// ExpireLease implements store.RuntimeTx.
func (t *runtimeTxn) ExpireLease(id string) (*store.Lease, error) {
	gone, err := t.scanLeases(`DELETE FROM leases WHERE id = $1 AND expires_at <= $2 RETURNING `+leaseColumns, id, t.now)
	if err != nil || len(gone) == 0 {
		return nil, err
	}
	return &gone[0].Lease, nil
}

// leasePlan is the plan of a license, with the defaults when it is gone.
func (t *txn) leasePlan(l *store.License) (*store.Plan, error) {
	p, err := doc[store.Plan](t, `SELECT doc FROM plans WHERE id = $1`, uuidOrNil(l.PlanID))
	if err != nil || p != nil {
		return p, err
	}
	return &store.Plan{LeaseSeconds: store.DefaultLeaseSeconds}, nil
}

// DeleteLapsedLeases implements store.RuntimeTx: FOR UPDATE SKIP LOCKED
// leaves the leases another server's sweep took to it.
func (t *runtimeTxn) DeleteLapsedLeases(limit int) ([]*store.StoredLease, error) {
	gone, err := t.scanLeases(`DELETE FROM leases WHERE id IN (SELECT id FROM leases WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		AND expires_at <= $1 RETURNING `+leaseColumns, t.now, limit)
	// RETURNING follows no order: oldest expiry first, as bbolt's index.
	slices.SortFunc(gone, func(a, b *leaseRecord) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), strings.Compare(a.ID, b.ID))
	})
	return gone, err
}

package bolt

import (
	"bytes"
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
func (t *txn) DeleteLiveLease(licenseID, deviceID, leaseID string) (*store.Lease, error) {
	rec, err := t.liveLeaseRecord(leaseID, licenseID, deviceID)
	if err != nil || rec == nil {
		return nil, err
	}
	return rec.lease(leaseID), t.removeLease(leaseID, rec)
}

// liveLeaseRecord loads lease id while it is live and of the license and
// the device ("": any); nil when it is not.
func (t *txn) liveLeaseRecord(id, licenseID, deviceID string) (*leaseRecord, error) {
	rec := new(leaseRecord)
	if idb(id) == nil {
		return nil, nil
	}
	ok, err := t.get(bLeases, id, rec)
	if err != nil || !ok || rec.LicenseID != licenseID || (deviceID != "" && rec.DeviceID != deviceID) || !rec.ExpiresAt.After(t.now) {
		return nil, err
	}
	return rec, nil
}

// HoldLicense implements store.RuntimeTx: the one writer holds every
// record already.
func (t runtimeTxn) HoldLicense(l *store.License) (*store.License, error) { return l, nil }

// LicenseLeases implements store.Tx, in the index's order.
func (t *txn) LicenseLeases(licenseID string) ([]*store.Lease, error) {
	return t.leasesListed(bLeasesLicense, licenseID)
}

// DeviceLeases implements store.Tx, in the index's order.
func (t *txn) DeviceLeases(deviceID string) ([]*store.Lease, error) {
	return t.leasesListed(bLeasesDevice, deviceID)
}

// leasesListed is leasesOf as the orchestration reads leases.
func (t *txn) leasesListed(index []byte, owner string) ([]*store.Lease, error) {
	idList, recs, err := t.leasesOf(index, owner)
	if err != nil {
		return nil, err
	}
	out := make([]*store.Lease, len(recs))
	for i, rec := range recs {
		out[i] = rec.lease(idList[i])
	}
	return out, nil
}

// InsertLease implements store.RuntimeTx.
func (t runtimeTxn) InsertLease(ra *store.RuntimeApp, l *store.Lease) error {
	return t.putLease(l.ID, &leaseRecord{OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvID: ra.Env.ID, LicenseID: l.LicenseID,
		DeviceID: l.DeviceID, Fingerprint: l.Fingerprint, ExpiresAt: l.ExpiresAt, CreatedAt: l.CreatedAt}, time.Time{})
}

// ExtendLease implements store.RuntimeTx.
func (t runtimeTxn) ExtendLease(id, licenseID, deviceID string, exp time.Time) (*store.Lease, error) {
	rec, err := t.liveLeaseRecord(id, licenseID, deviceID)
	if err != nil || rec == nil {
		return nil, err
	}
	next := *rec
	next.ExpiresAt = exp
	return next.lease(id), t.putLease(id, &next, rec.ExpiresAt)
}

// ExpireLease implements store.RuntimeTx.
func (t runtimeTxn) ExpireLease(id string) (*store.Lease, error) {
	rec := new(leaseRecord)
	if ok, err := t.get(bLeases, id, rec); err != nil || !ok || rec.ExpiresAt.After(t.now) {
		return nil, err
	}
	return rec.lease(id), t.removeLease(id, rec)
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

// leasePlan is the plan of a license, with the defaults when it is gone.
func (r *Runtime) leasePlan(t *txn, l *store.License) (*store.Plan, error) {
	p, err := cachedGet[store.Plan](r.cache, t, tagPlan, bPlans, idb(l.PlanID))
	if err != nil || p != nil {
		return p, err
	}
	return &store.Plan{LeaseSeconds: store.DefaultLeaseSeconds}, nil
}

// DeleteLapsedLeases implements store.RuntimeTx, walking the expiry index.
func (t runtimeTxn) DeleteLapsedLeases(limit int) ([]*store.StoredLease, error) {
	var gone []*store.StoredLease
	now := timeKey(t.now)
	c := t.tx.Bucket(bLeasesExpiry).Cursor()
	for k, _ := c.First(); k != nil && len(gone) < limit && bytes.Compare(k[:8], now) <= 0; k, _ = c.First() {
		id := ids(k[8:])
		rec := new(leaseRecord)
		if err := t.mustGet(bLeases, id, "lease", rec); err != nil {
			return nil, err
		}
		if err := t.removeLease(id, rec); err != nil {
			return nil, err
		}
		gone = append(gone, &store.StoredLease{Lease: *rec.lease(id), OrgID: rec.OrgID, AppID: rec.AppID, EnvID: rec.EnvID})
	}
	return gone, nil
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

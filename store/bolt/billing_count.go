package bolt

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// metaOrgLicenseCounts marks a file whose organization-level license counts
// have been computed; files written before they existed get them at open.
var metaOrgLicenseCounts = []byte("org_license_counts")

// countOrgLicense keeps the organization's license count in step with a
// license written by saveLicense, in the same transaction. A change that
// does not move the license across revoked/banned reads nothing, so the
// activation path pays nothing for it.
func (t *txn) countOrgLicense(prev, l *store.License) error {
	was := prev != nil && store.CountsAgainstTier(prev.Status)
	is := store.CountsAgainstTier(l.Status)
	if was == is {
		return nil
	}
	a := new(store.Application)
	if err := t.mustGet(bApps, l.AppID, "application", a); err != nil {
		return err
	}
	d := 1
	if was {
		d = -1
	}
	return t.addCount(bLicOrgActive, idb(a.OrgID), d)
}

// appLicensesCounted is the number of a's licenses that count against the
// organization's limit, from the per-environment status counts.
func (t *txn) appLicensesCounted(a *store.Application) int {
	n := 0
	for _, e := range a.Environments {
		for _, st := range store.LicenseStatus.Listed() {
			if store.CountsAgainstTier(st) {
				n += t.count(bLicEnvStatus, key(idb(e.ID), str(st)))
			}
		}
	}
	return n
}

// uncountAppLicenses takes a's licenses off its organization's count before
// the application is purged.
func (t *txn) uncountAppLicenses(a *store.Application) error {
	if n := t.appLicensesCounted(a); n > 0 {
		return t.addCount(bLicOrgActive, idb(a.OrgID), -n)
	}
	return nil
}

// countOrgLicenses computes every organization's license count once, for
// files written before the count was kept.
func (db *DB) countOrgLicenses() error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if meta.Get(metaOrgLicenseCounts) != nil {
			return nil
		}
		t := &txn{tx: tx, now: db.Clock()}
		counts := map[string]int{}
		err := tx.Bucket(bApps).ForEach(func(k, _ []byte) error {
			a := new(store.Application)
			if err := t.mustGet(bApps, ids(k), "application", a); err != nil {
				return err
			}
			counts[a.OrgID] += t.appLicensesCounted(a)
			return nil
		})
		if err != nil {
			return err
		}
		for org, n := range counts {
			if n == 0 {
				continue
			}
			if err := t.tx.Bucket(bCounts).Put(countKey(bLicOrgActive, idb(org)), u64(uint64(n))); err != nil {
				return err
			}
		}
		return meta.Put(metaOrgLicenseCounts, binary.BigEndian.AppendUint64(nil, 1))
	})
}

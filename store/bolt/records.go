package bolt

import (
	"bytes"
	"slices"

	"licensectl/store"
)

// The save helpers below are the only code that writes licenses, end-users
// and devices: each keeps every secondary index and count of its record in
// step with the record, in the caller's transaction. prev is the record as it
// was (nil for an insert); next is written.

// planInUse counts the licenses that keep plan (of application a) from
// being deleted, from the kept counts of licenses_by_plan_status.
func (t *txn) planInUse(a *store.Application, planID string) int {
	n := 0
	for _, env := range a.Environments {
		for _, st := range store.LicenseStatusesInUse {
			n += t.count(bLicEnvPlanStatus, key(idb(env.ID), idb(planID), str(st)))
		}
	}
	return n
}

// licenseIndexes lists the (index, prefix) entries a license occupies.
func licenseIndexes(l *store.License) [][2][]byte {
	env, plan := idb(l.EnvID), idb(l.PlanID)
	out := [][2][]byte{
		{bLicEnv, env},
		{bLicEnvStatus, key(env, str(l.Status))},
		{bLicEnvPlan, key(env, plan)},
		{bLicEnvPlanStatus, key(env, plan, str(l.Status))},
	}
	if l.UserID != "" {
		// A runtime login session carries the entitlements of its user's licenses.
		out = append(out, [2][]byte{bLicEnvUser, key(env, idb(l.UserID))})
	}
	return out
}

// containsIndex reports whether ixs holds the (index, prefix) entry ix.
func containsIndex(ixs [][2][]byte, ix [2][]byte) bool {
	return slices.ContainsFunc(ixs, func(o [2][]byte) bool { return bytes.Equal(o[0], ix[0]) && bytes.Equal(o[1], ix[1]) })
}

// saveLicense writes l and its indexes.
func (t *txn) saveLicense(prev, l *store.License) error {
	if err := t.countOrgLicense(prev, l); err != nil {
		return err
	}
	if err := t.put(bLicenses, l.ID, l); err != nil {
		return err
	}
	// Only entries that change are touched: an activation that adds a device
	// leaves every index as it was, and rewriting them would dirty a page
	// of each index in the hot path.
	next := licenseIndexes(l)
	if prev != nil {
		old := licenseIndexes(prev)
		for _, ix := range old {
			if containsIndex(next, ix) {
				continue
			}
			if err := t.unindex(ix[0], ix[1], prev.ID); err != nil {
				return err
			}
		}
		if prev.ExpiresAt != nil {
			if err := t.tx.Bucket(bLicExpiry).Delete(key(timeKey(*prev.ExpiresAt), idb(prev.ID))); err != nil {
				return err
			}
		}
		next = slices.DeleteFunc(next, func(ix [2][]byte) bool { return containsIndex(old, ix) })
	} else if err := t.setUnique(bLicKey, licKeyIndex(l.Key), l.ID); err != nil {
		return err
	}
	for _, ix := range next {
		if err := t.index(ix[0], ix[1], l.ID); err != nil {
			return err
		}
	}
	// Only licenses that can still lapse are in the expiry index the sweeper walks.
	if l.ExpiresAt != nil && (l.Status == store.LicenseActive || l.Status == store.LicenseInactive) {
		return t.tx.Bucket(bLicExpiry).Put(key(timeKey(*l.ExpiresAt), idb(l.ID)), []byte{})
	}
	return nil
}

// license loads a license of scope environment env.
func (t *txn) license(envID, id string) (*store.License, error) {
	l := new(store.License)
	if err := t.mustGet(bLicenses, id, "license", l); err != nil {
		return nil, err
	}
	if l.EnvID != envID {
		return nil, store.NotFound("license")
	}
	return l, nil
}

// saveEndUser writes u and its indexes.
func (t *txn) saveEndUser(prev, u *store.EndUser) error {
	if err := t.put(bEndUsers, u.ID, u); err != nil {
		return err
	}
	env := idb(u.EnvID)
	if prev == nil {
		if err := t.index(bEndUsersEnv, env, u.ID); err != nil {
			return err
		}
		if err := t.setUnique(bEndUsersEmail, key(env, []byte(u.Email)), u.ID); err != nil {
			return err
		}
	} else if prev.Status != u.Status {
		if err := t.unindex(bEndUsersEnvStatus, key(env, str(prev.Status)), u.ID); err != nil {
			return err
		}
	}
	return t.index(bEndUsersEnvStatus, key(env, str(u.Status)), u.ID)
}

// endUser loads an end-user of environment envID ("" for any).
func (t *txn) endUser(envID, id string) (*store.EndUser, error) {
	u := new(store.EndUser)
	if err := t.mustGet(bEndUsers, id, "user", u); err != nil {
		return nil, err
	}
	if envID != "" && u.EnvID != envID {
		return nil, store.NotFound("user")
	}
	return u, nil
}

// saveDevice writes d and its indexes.
func (t *txn) saveDevice(prev, d *store.Device) error {
	if err := t.put(bDevices, d.ID, d); err != nil {
		return err
	}
	env := idb(d.EnvID)
	if prev == nil {
		if err := t.index(bDevicesEnv, env, d.ID); err != nil {
			return err
		}
		if err := t.setUnique(bDevicesFP, key(env, []byte(d.Fingerprint)), d.ID); err != nil {
			return err
		}
	} else {
		if prev.Fingerprint != d.Fingerprint {
			// A re-bind: the device answers to its new fingerprint only.
			if err := t.delUnique(bDevicesFP, key(env, []byte(prev.Fingerprint))); err != nil {
				return err
			}
			if err := t.setUnique(bDevicesFP, key(env, []byte(d.Fingerprint)), d.ID); err != nil {
				return err
			}
		}
		if prev.Status == d.Status {
			return nil
		}
		if err := t.unindex(bDevicesEnvStatus, key(env, str(prev.Status)), d.ID); err != nil {
			return err
		}
	}
	return t.index(bDevicesEnvStatus, key(env, str(d.Status)), d.ID)
}

// device loads a device of environment env.
func (t *txn) device(envID, id string) (*store.Device, error) {
	d := new(store.Device)
	if err := t.mustGet(bDevices, id, "device", d); err != nil {
		return nil, err
	}
	if d.EnvID != envID {
		return nil, store.NotFound("device")
	}
	return d, nil
}

// revokeSessions revokes every live session listed under owner in a session
// index (bSessionsUser or bSessionsDevice). It returns how many it revoked.
func (t *txn) revokeSessions(index []byte, ownerID, reason string) (int, error) {
	return t.revokeListed(t.all(index, idb(ownerID)), reason, "")
}

// revokeLicenseSessions revokes the live sessions opened on a license.
func (t *txn) revokeLicenseSessions(licenseID, reason string) (int, error) {
	return t.revokeListed(t.licenseSessionCandidates(licenseID), reason, licenseID)
}

// licenseSessionCandidates lists every session of the devices bound to a
// license, of which those naming the license are its sessions. A license
// has no session index of its own (schema version 11 dropped it, a random
// page per activation): its sessions are found through its bindings, and a
// session outlives its device's binding only revoked (a reset revokes it).
func (t *txn) licenseSessionCandidates(licenseID string) []string {
	var out []string
	prefix := idb(licenseID)
	c := t.tx.Bucket(bLicDevices).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, t.all(bSessionsDevice, k[len(prefix):])...)
	}
	return out
}

// revokeListed revokes the live sessions among sids, only those opened on
// licenseID unless it is "", and returns how many it revoked.
func (t *txn) revokeListed(sids []string, reason, licenseID string) (int, error) {
	n := 0
	for _, sid := range sids {
		s := new(sessionRecord)
		if err := t.mustGet(bSessions, sid, "session", s); err != nil {
			return n, err
		}
		if s.RevokedAt != nil || (licenseID != "" && s.LicenseID != licenseID) {
			continue
		}
		now := t.now
		s.RevokedAt, s.RevokeReason = &now, reason
		if err := t.put(bSessions, sid, s); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

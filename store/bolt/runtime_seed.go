package bolt

import (
	"context"
	"slices"
	"time"

	"licensectl/store"
)

// The Seed functions write catalog records and statuses straight into the
// store for tests and the benchmark's seeding mode, without the management
// API's validation. Production code never calls them.

// SeedEntitlement creates an entitlement and returns its id.
func (db *DB) SeedEntitlement(ctx context.Context, ref store.AppRef, entKey string) (string, error) {
	e := &store.Entitlement{ID: store.NewID(), AppID: ref.AppID, Key: entKey, Name: entKey}
	err := db.update(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		e.CreatedAt = t.now
		if err := t.put(bEnts, e.ID, e); err != nil {
			return err
		}
		if err := t.index(bEntsApp, idb(ref.AppID), e.ID); err != nil {
			return err
		}
		return t.setUnique(bEntsKey, key(idb(ref.AppID), []byte(entKey)), e.ID)
	})
	return e.ID, err
}

// SeedPlan creates p (its ID and timestamps are set) and returns its id.
func (db *DB) SeedPlan(ctx context.Context, ref store.AppRef, p store.Plan) (string, error) {
	p.ID, p.AppID = store.NewID(), ref.AppID
	if p.EntitlementIDs == nil {
		p.EntitlementIDs = []string{}
	}
	err := db.update(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		p.CreatedAt, p.UpdatedAt = t.now, t.now
		if err := t.put(bPlans, p.ID, &p); err != nil {
			return err
		}
		return t.index(bPlansApp, idb(ref.AppID), p.ID)
	})
	return p.ID, err
}

// SeedLicenses generates n inactive licenses of a plan in the scope's
// environment.
func (db *DB) SeedLicenses(ctx context.Context, s store.Scope, planID string, n int, entIDs []string, expiresAt *time.Time) ([]*store.License, error) {
	var out []*store.License
	err := db.update(ctx, func(t *txn) error {
		out = out[:0]
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		p := new(store.Plan)
		if err := t.mustGet(bPlans, planID, "plan", p); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			l := &store.License{ID: store.NewID(), AppID: a.ID, EnvID: env.ID, Key: store.NewLicenseKey(), PlanID: planID, Status: store.LicenseInactive,
				EntitlementIDs: slices.Clone(entIDs), DeviceIDs: []string{}, ExpiresAt: expiresAt, DeviceResetsRemaining: p.DeviceResetLimit, CreatedAt: t.now, UpdatedAt: t.now}
			if l.EntitlementIDs == nil {
				l.EntitlementIDs = []string{}
			}
			if err := t.saveLicense(nil, l); err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// SeedStatus sets the status of a license, end-user or device (kind
// "license", "user", "device") and revokes the sessions the management
// status change would revoke.
func (db *DB) SeedStatus(ctx context.Context, s store.Scope, kind, id, status string) error {
	return db.update(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		switch kind {
		case "license":
			l, err := t.license(env.ID, id)
			if err != nil {
				return err
			}
			prev := *l
			l.Status = status
			if err := t.saveLicense(&prev, l); err != nil {
				return err
			}
			if status != store.LicenseActive {
				_, err = t.revokeSessions(bSessionsLicense, id, RevokedStatus)
			}
			return err
		case "user":
			u, err := t.endUser(env.ID, id)
			if err != nil {
				return err
			}
			prev := *u
			u.Status = status
			if err := t.saveEndUser(&prev, u); err != nil {
				return err
			}
			if status != store.UserActive {
				_, err = t.revokeSessions(bSessionsUser, id, RevokedStatus)
			}
			return err
		case "device":
			d, err := t.device(env.ID, id)
			if err != nil {
				return err
			}
			prev := *d
			d.Status = status
			if err := t.saveDevice(&prev, d); err != nil {
				return err
			}
			if status != store.DeviceActive {
				_, err = t.revokeSessions(bSessionsDevice, id, RevokedStatus)
			}
			return err
		}
		return store.Invalid("kind", "unknown kind %q", kind)
	})
}

// SeedLicense returns a license by key, for tests that inspect it.
func (db *DB) SeedLicense(ctx context.Context, licenseKey string) (*store.License, error) {
	var out *store.License
	err := db.view(ctx, func(t *txn) error {
		out = new(store.License)
		return t.mustGet(bLicenses, t.lookup(bLicKey, []byte(licenseKey)), "license", out)
	})
	return out, err
}

// SeedDevice returns the device of a fingerprint, for tests that inspect it.
func (db *DB) SeedDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	var out *store.Device
	err := db.view(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		out, err = t.device(env.ID, t.lookup(bDevicesFP, key(idb(env.ID), []byte(fingerprint))))
		return err
	})
	return out, err
}

package bolt

import (
	"context"
	"slices"
	"time"

	"licensectl/store"
)

// Fixtures are the test hooks of a DB (storetest.Fixtures): they create
// what no interface of store creates and skip the rules those interfaces
// apply, so they live apart from the DB, where nothing a server calls can
// reach them by accident.
type Fixtures struct{ db *DB }

// FixturesOf returns the test hooks of db.
func FixturesOf(db *DB) *Fixtures { return &Fixtures{db: db} }

// SeedBinding binds a device to a license and opens a live runtime session
// for it (owned by userID when not ""), skipping the runtime's checks (device
// limit, statuses, first activation). Imports of bindings from another
// system and end-to-end tests of the management API use it; the runtime
// binds inside activation instead. It returns the session id.
func (f *Fixtures) SeedBinding(ctx context.Context, s store.Scope, licenseID, deviceID, userID string) (string, error) {
	var sid string
	err := f.db.update(ctx, func(t *txn) error {
		_, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prevL, err := t.license(env.ID, licenseID)
		if err != nil {
			return err
		}
		prevD, err := t.device(env.ID, deviceID)
		if err != nil {
			return err
		}
		l, d := *prevL, *prevD
		if err := t.bindDevice(&l, deviceID, t.now); err != nil {
			return err
		}
		if !slices.Contains(d.LicenseIDs, licenseID) {
			d.LicenseIDs = append(slices.Clone(d.LicenseIDs), licenseID)
		}
		if userID != "" {
			if _, err := t.endUser(env.ID, userID); err != nil {
				return err
			}
			l.UserID, d.UserID = userID, userID
		}
		if err := t.saveLicense(prevL, &l); err != nil {
			return err
		}
		if err := t.saveDevice(prevD, &d); err != nil {
			return err
		}
		rec := &sessionRecord{ID: store.NewID(), AppID: l.AppID, EnvID: env.ID, LicenseID: l.ID, UserID: userID, DeviceID: d.ID,
			AccessHash: store.HashSecret(store.NewID()), RefreshHash: store.HashSecret(store.NewID()),
			AccessExpiresAt: t.now.Add(15 * time.Minute), RefreshExpiresAt: t.now.Add(14 * 24 * time.Hour), AbsoluteExpiresAt: t.now.Add(30 * 24 * time.Hour), CreatedAt: t.now}
		if err := t.put(bSessions, rec.ID, rec); err != nil {
			return err
		}
		if err := t.setUnique(bSessionsRefresh, []byte(rec.RefreshHash), rec.ID); err != nil {
			return err
		}
		for _, ix := range [][2]string{{string(bSessionsDevice), d.ID}, {string(bSessionsUser), userID}} {
			if ix[1] == "" {
				continue
			}
			if err := t.index([]byte(ix[0]), idb(ix[1]), rec.ID); err != nil {
				return err
			}
		}
		sid = rec.ID
		return nil
	})
	return sid, err
}

// SessionRevokeReason returns why a runtime session was revoked, or "" while
// it is live. Returns not_found.
func (f *Fixtures) SessionRevokeReason(ctx context.Context, id string) (string, error) {
	var reason string
	err := f.db.view(ctx, func(t *txn) error {
		rec := new(sessionRecord)
		if err := t.mustGet(bSessions, id, "session", rec); err != nil {
			return err
		}
		if rec.RevokedAt != nil {
			reason = rec.RevokeReason
		}
		return nil
	})
	return reason, err
}

// SeedLegacyDevice creates a device whose fingerprint is stored exactly as
// given, skipping the input rules of docs/design.md §8, as releases before those
// rules stored it. Tests use it to show that outputs stay safe with such
// old records; nothing else should.
func (f *Fixtures) SeedLegacyDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	var out *store.Device
	err := f.db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		out, _, err = t.findOrCreateDevice(a, env.ID, fingerprint)
		return err
	})
	return out, err
}

// SeedLegacyRefreshToken gives a live session a new refresh token of the
// form releases before `<session id>.<secret>` issued (32 random bytes, no
// dot), stored as they stored it: hashed, and found through the hash index.
// Tests use it to show that such tokens keep working until they expire.
func (f *Fixtures) SeedLegacyRefreshToken(ctx context.Context, sessionID string) (string, error) {
	tok := newTokenSeed(sessionID).Secret
	err := f.db.update(ctx, func(t *txn) error {
		s := new(sessionRecord)
		if err := t.mustGet(bSessions, sessionID, "session", s); err != nil {
			return err
		}
		s.RefreshHash = store.HashSecret(tok)
		if err := t.put(bSessions, s.ID, s); err != nil {
			return err
		}
		return t.setUnique(bSessionsRefresh, []byte(s.RefreshHash), s.ID)
	})
	return tok, err
}

// SeedLegacyApplicationName renames an application to name exactly as
// given, skipping the input rules, as SeedLegacyDevice does for devices.
func (f *Fixtures) SeedLegacyApplicationName(ctx context.Context, ref store.AppRef, name string) error {
	return f.db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
		if err != nil {
			return err
		}
		a.Name = name
		return t.put(bApps, a.ID, a)
	})
}

// EnsureDevice returns the device with this fingerprint in the scope's
// environment, creating it when new. The runtime creates devices inside
// activation and login instead.
func (f *Fixtures) EnsureDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	fp, err := store.CheckFingerprint(fingerprint)
	if err != nil {
		return nil, err
	}
	var out *store.Device
	err = f.db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		out, _, err = t.findOrCreateDevice(a, env.ID, fp)
		return err
	})
	return out, err
}

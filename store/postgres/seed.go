package postgres

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"time"

	"licensectl/store"
)

// The test hooks of storetest.Fixtures for the licenses part: they create
// what no interface of store creates and skip the rules those interfaces
// apply.

// licEnsureDevice returns the device with this fingerprint in the
// environment, creating it (active, unbound) when new.
func (t *txn) licEnsureDevice(a *store.Application, envID, fingerprint string) (*store.Device, error) {
	d, err := t.deviceByFingerprint(envID, fingerprint)
	if err != nil || d != nil {
		return d, err
	}
	d = &store.Device{ID: store.NewID(), AppID: a.ID, EnvID: envID, Fingerprint: fingerprint, Status: store.DeviceActive,
		LicenseIDs: []string{}, CreatedAt: t.now}
	return d, t.saveDevice(d, true)
}

// EnsureDevice implements storetest.Fixtures.
func (db *DB) EnsureDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	fp, err := store.CheckFingerprint(fingerprint)
	if err != nil {
		return nil, err
	}
	return db.seedDevice(ctx, s, fp)
}

// SeedLegacyDevice implements storetest.Fixtures: the fingerprint is stored
// exactly as given, as releases before the input rules of docs/design.md §8
// stored it.
func (db *DB) SeedLegacyDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	return db.seedDevice(ctx, s, fingerprint)
}

func (db *DB) seedDevice(ctx context.Context, s store.Scope, fp string) (*store.Device, error) {
	var out *store.Device
	err := db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		out, err = t.licEnsureDevice(a, env.ID, fp)
		return err
	})
	return out, err
}

// SeedLegacyApplicationName implements storetest.Fixtures: the name is
// stored exactly as given.
func (db *DB) SeedLegacyApplicationName(ctx context.Context, ref store.AppRef, name string) error {
	return db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
		if err != nil {
			return err
		}
		a.Name = name
		return t.saveApp(a, false)
	})
}

// seedSecret is an unguessable token nobody is given: a seeded session's
// tokens are stored only as hashes, as the runtime stores them.
func seedSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SeedBinding implements storetest.Fixtures: it binds the device to the
// license and opens a live runtime session for it (owned by userID when not
// ""), skipping the runtime's checks (device limit, statuses, first
// activation). It returns the session id.
func (db *DB) SeedBinding(ctx context.Context, s store.Scope, licenseID, deviceID, userID string) (string, error) {
	var sid string
	err := db.update(ctx, func(t *txn) error {
		a, env, err := t.scope(s)
		if err != nil {
			return err
		}
		prevL, err := t.lockLicense(env.ID, licenseID)
		if err != nil {
			return err
		}
		prevD, err := t.lockDevice(env.ID, deviceID)
		if err != nil {
			return err
		}
		l, d := *prevL, *prevD
		if _, err := t.bindDevice(l.ID, d.ID); err != nil {
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
		if err := t.saveLicense(a.OrgID, &l, false); err != nil {
			return err
		}
		if err := t.saveDevice(&d, false); err != nil {
			return err
		}
		sid = store.NewID()
		_, err = t.exec(`INSERT INTO sessions (id, app_id, env_id, license_id, user_id, device_id, access_hash, refresh_hash,
				access_expires_at, refresh_expires_at, absolute_expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			sid, l.AppID, env.ID, l.ID, nullID(userID), d.ID, store.HashSecret(seedSecret()), store.HashSecret(seedSecret()),
			t.now.Add(15*time.Minute), t.now.Add(14*24*time.Hour), t.now.Add(30*24*time.Hour), t.now)
		return err
	})
	return sid, err
}

// SessionRevokeReason implements storetest.Fixtures: why a runtime session
// was revoked, or "" while it is live. Returns not_found.
func (db *DB) SessionRevokeReason(ctx context.Context, id string) (string, error) {
	var revoked bool
	var reason string
	err := db.pool.QueryRow(ctx, `SELECT revoked_at IS NOT NULL, revoke_reason FROM sessions WHERE id = $1`, uuidOrNil(id)).Scan(&revoked, &reason)
	if noRows(err) {
		return "", store.NotFound("session")
	}
	if err != nil || !revoked {
		return "", err
	}
	return reason, nil
}

// SeedLegacyRefreshToken implements storetest.Fixtures: it gives a live
// session a new refresh token of the form releases before `<session
// id>.<secret>` issued (32 random bytes, no dot), stored as they stored it:
// hashed, found by its hash. Tests use it to show that such tokens keep
// working until they expire.
func (db *DB) SeedLegacyRefreshToken(ctx context.Context, sessionID string) (string, error) {
	tok := newTokenSeed(sessionID).Secret
	n := int64(0)
	err := db.update(ctx, func(t *txn) (err error) {
		n, err = t.exec(`UPDATE sessions SET refresh_hash = $2 WHERE id = $1`, uuidOrNil(sessionID), store.HashSecret(tok))
		return err
	})
	if err == nil && n == 0 {
		err = store.NotFound("session")
	}
	if err != nil {
		return "", err
	}
	return tok, nil
}

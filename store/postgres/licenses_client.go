package postgres

import (
	"time"

	"licensectl/store"
)

// The runtime calls of the licenses part (seat leases, machine-file
// checkouts) authenticate their client as every runtime call does: the
// application environment named by public key or id, the request's nonce
// spent once in the environment, and an activation session whose access
// token passes the validation cascade (docs/design.md §5). The first two
// are the runtime's own (Runtime.activeApp, Runtime.consumeNonce).

// licSession is an activation session with the records its cascade read.
type licSession struct {
	lic *store.License
	dev *store.Device
}

// licLeaseSession is the activation session of an access token that passes
// the cascade, else session_invalid (not_activation_session for a login
// session). lock takes the license's row lock before the license is
// checked, so that a status change on another server is either seen here or
// sees what this transaction writes.
func (t *txn) licLeaseSession(ra *store.RuntimeApp, accessToken string, lock bool) (*licSession, error) {
	reason, v, err := t.licCascade(ra, accessToken, lock)
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

// licCascade checks the session of accessToken (store.SessionView.Reason)
// and returns the first reason it is not usable, or "".
func (t *txn) licCascade(ra *store.RuntimeApp, accessToken string, lock bool) (string, *licSession, error) {
	if accessToken == "" {
		return store.ReasonTokenInvalid, nil, nil
	}
	var appID, envID, licID, userID string
	var revokedAt *time.Time
	var accessExp time.Time
	var userRaw, devRaw []byte
	err := t.tx.QueryRow(t.ctx, `SELECT s.app_id::text, s.env_id::text, coalesce(s.license_id::text, ''), coalesce(s.user_id::text, ''),
			s.revoked_at, s.access_expires_at, u.doc, d.doc
		FROM sessions s LEFT JOIN end_users u ON u.id = s.user_id LEFT JOIN devices d ON d.id = s.device_id
		WHERE s.access_hash = $1 LIMIT 1`, store.HashSecret(accessToken)).
		Scan(&appID, &envID, &licID, &userID, &revokedAt, &accessExp, &userRaw, &devRaw)
	if noRows(err) {
		return store.ReasonTokenInvalid, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	// Another application's session is refused before its license is
	// read, and so never held.
	if appID != ra.App.ID || envID != ra.Env.ID {
		return store.ReasonTokenInvalid, nil, nil
	}
	v := &licSession{}
	if licID != "" {
		load := t.license
		if lock {
			load = t.lockLicense
		}
		if v.lic, err = load("", licID); err != nil && store.ErrorCode(err) != store.ECodeNotFound {
			return "", nil, err
		}
	}
	var user *store.EndUser
	if userRaw != nil {
		if user, err = decode[store.EndUser](userRaw); err != nil {
			return "", nil, err
		}
	}
	if devRaw != nil {
		if v.dev, err = decode[store.Device](devRaw); err != nil {
			return "", nil, err
		}
	}
	sv := store.SessionView{Session: &store.Session{AppID: appID, EnvID: envID, LicenseID: licID, UserID: userID, RevokedAt: revokedAt,
		AccessExpiresAt: accessExp}, License: v.lic, User: user, Device: v.dev}
	return sv.Reason(ra, t.now, true), v, nil
}

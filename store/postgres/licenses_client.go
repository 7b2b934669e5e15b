package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

// The runtime calls of the licenses part (seat leases, machine-file
// checkouts) authenticate their client as every runtime call does: the
// application environment named by public key or id, the request's nonce
// spent once in the environment, and an activation session whose access
// token passes the validation cascade (docs/design.md §5).

// licClientApp resolves the application environment c names and refuses a
// disabled application. An unknown key or id is invalid_app.
func (t *txn) licClientApp(c store.RuntimeClient) (*store.RuntimeApp, error) {
	var raw []byte
	envID := ""
	var err error
	if c.PublicKey != "" {
		err = t.tx.QueryRow(t.ctx, `SELECT a.doc, e.id::text FROM app_envs e JOIN apps a ON a.id = e.app_id WHERE e.public_key = $1`,
			c.PublicKey).Scan(&raw, &envID)
	} else {
		err = t.tx.QueryRow(t.ctx, `SELECT doc FROM apps WHERE id = $1`, uuidOrNil(c.AppID)).Scan(&raw)
	}
	if noRows(err) {
		return nil, store.ErrUnknownApp()
	}
	if err != nil {
		return nil, err
	}
	a, err := decode[store.Application](raw)
	if err != nil {
		return nil, err
	}
	var env *store.Environment
	if envID != "" {
		env = a.EnvByID(envID)
	} else {
		name, err := c.EnvName()
		if err != nil {
			return nil, err
		}
		env = a.Env(name)
	}
	if env == nil {
		return nil, store.ErrUnknownApp()
	}
	if err := a.CheckActive(); err != nil {
		return nil, err
	}
	return &store.RuntimeApp{App: a, Env: env}, nil
}

// licConsumeNonce refuses a request outside the replay window or whose
// nonce was used, writing the refusal's audit entry, else records the nonce
// as used. The primary key (env_id, nonce) makes it once across servers: a
// second insert waits for the first and then finds it.
func (t *txn) licConsumeNonce(ra *store.RuntimeApp, rp store.Replay, window time.Duration, what string) error {
	err := rp.CheckWindow(t.now, window)
	if err == nil {
		var taken bool
		qerr := t.tx.QueryRow(t.ctx, `INSERT INTO nonces (env_id, nonce, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (env_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE nonces.expires_at <= $4
			RETURNING true`, ra.Env.ID, rp.Nonce, rp.UsedUntil(t.now, window), t.now).Scan(&taken)
		if qerr == nil {
			return nil
		}
		if !noRows(qerr) {
			return qerr
		}
		var usedUntil time.Time
		if qerr := t.tx.QueryRow(t.ctx, `SELECT expires_at FROM nonces WHERE env_id = $1 AND nonce = $2`, ra.Env.ID, rp.Nonce).Scan(&usedUntil); qerr != nil {
			return qerr
		}
		if err = store.CheckNonceUnused(usedUntil, t.now); err == nil {
			return nil
		}
	}
	if aerr := t.audit(auditEvent{Event: store.EventRuntimeReplayRejected, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: store.Target{Type: what}, Metadata: map[string]any{"code": store.ErrorCode(err), "nonce": rp.Nonce}}); aerr != nil {
		return aerr
	}
	return err
}

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

// licCascade checks the session of accessToken in the order of
// docs/design.md §5 and returns the first reason it is not usable, or "".
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
	if appID != ra.App.ID || envID != ra.Env.ID {
		return store.ReasonTokenInvalid, nil, nil
	}
	v := &licSession{}
	if licID != "" {
		load := t.license
		if lock {
			load = t.lockLicense
		}
		if v.lic, err = load("", licID); store.ErrorCode(err) == store.ECodeNotFound {
			return store.ReasonTokenInvalid, nil, nil
		} else if err != nil {
			return "", nil, err
		}
	}
	var user *store.EndUser
	if userID != "" {
		if userRaw == nil {
			return store.ReasonTokenInvalid, nil, nil
		}
		if user, err = decode[store.EndUser](userRaw); err != nil {
			return "", nil, err
		}
	}
	if devRaw == nil {
		return store.ReasonTokenInvalid, nil, nil
	}
	if v.dev, err = decode[store.Device](devRaw); err != nil {
		return "", nil, err
	}
	if reason := store.SessionReason(ra.App, v.lic, user, v.dev, t.now); reason != "" {
		return reason, v, nil
	}
	if revokedAt != nil {
		return store.ReasonSessionRevoked, v, nil
	}
	if !t.now.Before(accessExp) {
		return store.ReasonTokenExpired, v, nil
	}
	return "", v, nil
}

// licAsActor makes the audit entries of the rest of the transaction name
// who acted, keeping the request's address and user agent.
func (t *txn) licAsActor(typ, id string) {
	a := store.ActorFrom(t.ctx)
	a.Type, a.ID = typ, id
	t.ctx = store.WithActor(t.ctx, a)
}

// licSoftUpdate runs fn in one transaction. A *store.Error returned by fn
// is the request's answer but does not roll back what fn wrote before it
// (the spent nonce, the audit entry of a refused replay): the transaction
// commits and the error is handed back afterwards. Other errors roll back.
func (db *DB) licSoftUpdate(ctx context.Context, fn func(t *txn) error) error {
	var soft error
	err := db.update(ctx, func(t *txn) error {
		soft = nil
		err := fn(t)
		if err != nil && store.AsError(err) != nil {
			soft = err
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return soft
}

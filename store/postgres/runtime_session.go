package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

// loginRead reads in one statement what a login checks before the
// password: the application environment (refused when disabled), whether
// the nonce is in use (replay: the refusal, without writing) and the
// password hash and id of the end-user of the e-mail ("" when none).
func (r *Runtime) loginRead(ctx context.Context, c store.RuntimeClient, in store.RuntimeLoginInput) (hash, userID string, replay, err error) {
	where, args, err := rtEnvWhere(c)
	if err != nil {
		return "", "", nil, err
	}
	conn, err := r.db.acquire(ctx)
	if err != nil {
		return "", "", nil, err
	}
	defer conn.Release()
	now := r.db.Clock()
	var appDoc, userDoc []byte
	var envID string
	var usedUntil *time.Time
	err = conn.QueryRow(ctx, `SELECT a.doc, e.id::text,
			(SELECT n.expires_at FROM nonces n WHERE n.env_id = e.id AND n.nonce = $1),
			(SELECT u.doc FROM end_users u WHERE u.env_id = e.id AND u.email = $2)
		FROM app_envs e JOIN apps a ON a.id = e.app_id WHERE `+rtEnvAfter(where, 2), append([]any{in.Replay.Nonce, in.Email}, args...)...).Scan(
		&appDoc, &envID, &usedUntil, &userDoc)
	if noRows(err) {
		return "", "", nil, store.ErrUnknownApp()
	}
	if err != nil {
		return "", "", nil, mapError(err)
	}
	ra, err := rtApp(appDoc, envID)
	if err != nil {
		return "", "", nil, err
	}
	if err := ra.App.CheckActive(); err != nil {
		return "", "", nil, err
	}
	if replay = in.Replay.CheckWindow(now, r.o.ReplayWindow); replay == nil && usedUntil != nil {
		replay = store.CheckNonceUnused(*usedUntil, now)
	}
	if userDoc != nil {
		u, err := decode[store.EndUser](userDoc)
		if err != nil {
			return "", "", nil, err
		}
		hash, userID = u.PasswordHash, u.ID
	}
	return hash, userID, replay, nil
}

// userKeys is the union of the entitlements of the user's usable licenses
// of the environment on device deviceID: what a login session grants.
func (t *txn) userKeys(envID, userID, deviceID string) ([]string, error) {
	var raw []byte
	if err := t.tx.QueryRow(t.ctx, `SELECT `+rtUserLicsExpr("$1::uuid", "$2::uuid", "$3::uuid", "$4::timestamptz"), envID, userID, deviceID, t.now).Scan(&raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return []string{}, nil
	}
	lics, err := decode[[]rtUserLicense](raw)
	if err != nil {
		return nil, err
	}
	return rtUsableKeys(*lics, t.now), nil
}

// Validate implements store.Runtime. It is one query and writes nothing:
// nothing is cached, so a revocation committed by any server is seen by the
// next validation on every server (docs/design.md §12); a device whose
// last_seen_at is stale is queued for FlushSeen instead.
func (r *Runtime) Validate(ctx context.Context, c store.RuntimeClient, accessToken string) (*store.Validation, error) {
	hash := ""
	if accessToken != "" {
		hash = store.HashSecret(accessToken)
	}
	conn, err := r.db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	now := r.db.Clock()
	v, err := r.view(ctx, conn, c, rtByAccess, hash, now)
	if err != nil {
		return nil, err
	}
	reason := v.cascade(now, true)
	if reason == "" {
		reason = v.leaseReason()
	}
	if reason != "" {
		return &store.Validation{Reason: reason}, nil
	}
	r.NoteSeen(v.dev, v.s.ID, now)
	return &store.Validation{Valid: true, Entitlements: v.entitlements(now), ExpiresAt: v.s.AccessExpiresAt}, nil
}

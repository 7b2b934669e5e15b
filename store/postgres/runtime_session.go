package postgres

import (
	"context"
	"slices"
	"strings"
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

// Logout implements store.Runtime.
func (r *Runtime) Logout(ctx context.Context, c store.RuntimeClient, accessToken string) error {
	if accessToken == "" {
		return store.ErrUnknownAccessToken()
	}
	hash := store.HashSecret(accessToken)
	return r.db.update(ctx, func(t *txn) error {
		v, err := r.view(t.ctx, t.tx, c, rtByAccess, hash, t.now)
		if err != nil {
			return err
		}
		if v.s == nil || v.s.AppID != v.ra.App.ID || v.s.EnvID != v.ra.Env.ID {
			return store.ErrUnknownAccessToken()
		}
		_, err = t.exec(`UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE id = $1 AND revoked_at IS NULL`,
			v.s.ID, t.now, store.RevokedLogout)
		return err
	})
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
	r.seen.note(v, now, r.o.SeenInterval)
	return &store.Validation{Valid: true, Entitlements: v.entitlements(now), ExpiresAt: v.s.AccessExpiresAt}, nil
}

// Refresh implements store.Runtime. Of the refreshes of one token on every
// server exactly one wins: the rotation is a conditional UPDATE on the
// token it replaces, and a loser reads the session again and is told it
// rotated (docs/design.md §12).
func (r *Runtime) Refresh(ctx context.Context, c store.RuntimeClient, refreshToken string) (*store.RuntimeSession, error) {
	if refreshToken == "" {
		return nil, store.ErrUnknownRefreshToken()
	}
	hash := store.HashSecret(refreshToken)
	where, key := rtByLegacyRefesh, any(hash)
	if sid, _, ok := strings.Cut(refreshToken, "."); ok {
		where, key = rtByID, uuidOrNil(sid)
	}
	seed := newRTSeed("")
	var out *store.RuntimeSession
	err := r.softUpdate(ctx, func(t *txn) error {
		out = nil
		for attempt := 0; attempt < 3; attempt++ {
			v, err := r.view(t.ctx, t.tx, c, where, key, t.now)
			if err != nil {
				return err
			}
			out, err = r.rotate(t, v, refreshToken, hash, seed)
			if out != nil || err != nil {
				return err
			}
		}
		return store.ErrRecordBusy()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rotate decides a refresh on the session of v as read, and rotates its
// pair when hash is its current token. It returns nil and no error when
// another refresh rotated or revoked the session since v was read: the
// caller reads it again.
func (r *Runtime) rotate(t *txn, v *rtView, token, hash string, seed rtSeed) (*store.RuntimeSession, error) {
	s, ra := v.s, v.ra
	var current, known bool
	if s != nil {
		current, known = store.RefreshState(hash, s.RefreshHash, s.RetiredRefresh, store.RefreshTokenIssued(ra.Env, token))
	}
	// A token naming a session whose hashes and tag it does not match is
	// unknown, not reuse: the session id alone is no proof of holding the
	// session.
	if !known || s.AppID != ra.App.ID || s.EnvID != ra.Env.ID {
		return nil, store.ErrUnknownRefreshToken()
	}
	if err := ra.App.CheckActive(); err != nil {
		return nil, err
	}
	if !current && r.rotatedJustNow(t, s, hash) {
		return nil, store.ErrRefreshRotated()
	}
	if !current {
		// A retired token presented again: whoever holds it is not the
		// session's current holder, so the whole session ends, once.
		n, err := t.exec(`UPDATE sessions SET revoked_at = $2, revoke_reason = $3 WHERE id = $1 AND revoked_at IS NULL`,
			s.ID, t.now, store.RevokedRefreshReuse)
		if err != nil {
			return nil, err
		}
		if n == 1 {
			t.rtActor(store.ActorSystem, "")
			if err := t.audit(auditEvent{Event: store.EventSessionRefreshReused, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
				Target: store.Target{Type: "session", ID: s.ID}, Metadata: map[string]any{"license_id": s.LicenseID, "user_id": s.UserID, "device_id": s.DeviceID}}); err != nil {
				return nil, err
			}
		}
		return nil, store.ErrRefreshReused()
	}
	if reason := v.cascade(t.now, false); reason != "" {
		return nil, store.ErrSessionInvalid(reason)
	}
	if !t.now.Before(s.RefreshExpiresAt) || !t.now.Before(s.AbsoluteExpires) {
		return nil, store.ErrRefreshExpired()
	}
	ents := v.entitlements(t.now)
	sp := rtSpec{ra: ra, licenseID: s.LicenseID, userID: s.UserID, deviceID: s.DeviceID, ents: ents, roles: v.roles(), mnt: v.maintenance()}
	access, exp, err := r.sign(t.now, sp, s.ID, seed.JTI)
	if err != nil {
		return nil, err
	}
	retired := append(slices.Clone(s.RetiredRefresh), s.RefreshHash)
	if n := len(retired) - rtMaxRetired; n > 0 {
		// Older retired hashes are forgotten, so the row does not grow with
		// every rotation: a token of the tagged form is still recognized by
		// its tag, one of the form before it is then just unknown.
		retired = retired[n:]
	}
	seed.SessionID = s.ID
	refresh := seed.refreshToken(ra.Env)
	rexp := minTimeRT(t.now.Add(r.o.RefreshIdleTTL), s.AbsoluteExpires)
	// The winner: of the transactions that read this token as current,
	// only the first to update the row finds it still there.
	var rotated time.Time
	err = t.tx.QueryRow(t.ctx, `UPDATE sessions SET access_hash = $3, refresh_hash = $4, retired_refresh = $5, rotated_at = $6,
			access_expires_at = $7, refresh_expires_at = $8
		WHERE id = $1 AND refresh_hash = $2 AND revoked_at IS NULL RETURNING rotated_at`,
		s.ID, s.RefreshHash, store.HashSecret(access), store.HashSecret(refresh), retired, t.now, exp, rexp).Scan(&rotated)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &store.RuntimeSession{SessionID: s.ID, AccessToken: access, RefreshToken: refresh, AccessExpiresAt: exp,
		RefreshExpiresAt: rexp, Entitlements: ents}, nil
}

// rotatedJustNow reports whether hash is the token the session's last
// rotation retired, presented within the grace of that rotation: a second
// thread of the same client refreshing at the same moment, not a thief.
func (r *Runtime) rotatedJustNow(t *txn, s *rtSession, hash string) bool {
	if r.o.RefreshReuseGrace <= 0 || s.RevokedAt != nil || s.RotatedAt == nil || len(s.RetiredRefresh) == 0 {
		return false
	}
	return s.RetiredRefresh[len(s.RetiredRefresh)-1] == hash && t.now.Sub(*s.RotatedAt) < r.o.RefreshReuseGrace
}

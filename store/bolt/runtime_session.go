package bolt

import (
	"context"
	"encoding/hex"
	"slices"
	"time"

	"licensectl/store"
)

// Logout implements store.Runtime.
func (r *Runtime) Logout(ctx context.Context, c store.RuntimeClient, accessToken string) error {
	if accessToken == "" {
		return store.ErrUnknownAccessToken()
	}
	hash := store.HashSecret(accessToken)
	return r.db.softUpdate(ctx, func(t *txn) error {
		ra, err := r.resolve(t, c)
		if err != nil {
			return err
		}
		s, err := r.findByAccess(t, accessToken, hash)
		if err != nil {
			return err
		}
		if s == nil || s.AppID != ra.App.ID || s.EnvID != ra.Env.ID {
			return store.ErrUnknownAccessToken()
		}
		return t.revokeSession(s.ID, store.RevokedLogout)
	})
}

// Validate implements store.Runtime. It is one read transaction and writes
// nothing: a device whose last_seen_at is stale is queued for the
// background flusher instead.
func (r *Runtime) Validate(ctx context.Context, c store.RuntimeClient, accessToken string) (*store.Validation, error) {
	var sum [32]byte
	if accessToken != "" {
		sum = store.SumSecret(accessToken)
	}
	var out *store.Validation
	err := r.db.view(ctx, func(t *txn) error {
		txid := t.tx.ID()
		if accessToken != "" {
			if out = r.valid.get(sum, txid, c, t.now); out != nil {
				return nil
			}
		}
		ra, err := r.resolve(t, c)
		if err != nil {
			return err
		}
		var s *sessionRecord
		if accessToken != "" {
			if s, err = r.findByAccess(t, accessToken, hex.EncodeToString(sum[:])); err != nil {
				return err
			}
		}
		reason, v, err := r.cascade(t, ra, s, true)
		if err != nil {
			return err
		}
		var lease *leaseRecord
		if reason == "" && v.lic != nil {
			if reason, lease, err = r.leaseReason(t, v); err != nil {
				return err
			}
		}
		until := farFuture
		if reason != "" {
			out = &store.Validation{Reason: reason}
		} else {
			ents, turns, err := r.entitlements(t, v)
			if err != nil {
				return err
			}
			out = &store.Validation{Valid: true, Entitlements: ents, ExpiresAt: s.AccessExpiresAt}
			r.seen.note(v, t.now, r.o.SeenInterval)
			until = minTime(validUntil(v, t.now, r.o.SeenInterval), turns)
			if lease != nil {
				// The answer turns to lease_required when the lease runs
				// out, which no write announces.
				until = minTime(until, lease.ExpiresAt)
			}
		}
		if accessToken != "" {
			r.valid.put(sum, &validEntry{txid: txid, client: c, v: out, until: until})
		}
		return nil
	})
	return out, err
}

// farFuture bounds cached invalid answers, which time does not change.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// Refresh implements store.Runtime.
func (r *Runtime) Refresh(ctx context.Context, c store.RuntimeClient, refreshToken string) (*store.RuntimeSession, error) {
	if refreshToken == "" {
		return nil, store.ErrUnknownRefreshToken()
	}
	hash := store.HashSecret(refreshToken)
	seed := newTokenSeed("")
	r.presignRefresh(ctx, c, refreshToken, hash, &seed)
	var out *store.RuntimeSession
	err := r.softBatch(ctx, func(t *txn) error {
		out = nil
		ra, err := r.resolve(t, c)
		if err != nil {
			return err
		}
		// The record comes from the decode cache and is copied before any
		// change; its one slice is cloned before it is appended to.
		cs, err := cachedGet[sessionRecord](r.cache, t, tagSession, bSessions, t.refreshSessionID(refreshToken, hash))
		if err != nil {
			return err
		}
		var current, known bool
		if cs != nil {
			current, known = store.RefreshState(hash, cs.RefreshHash, cs.RetiredRefresh, store.RefreshTokenIssued(ra.Env, refreshToken))
		}
		// A token naming a session whose hashes and tag it does not match is
		// unknown, not reuse: the session id alone is no proof of holding
		// the session.
		if !known || cs.AppID != ra.App.ID || cs.EnvID != ra.Env.ID {
			return store.ErrUnknownRefreshToken()
		}
		sc := *cs
		s := &sc
		if err := ra.App.CheckActive(); err != nil {
			return err
		}
		if !current && r.rotatedJustNow(t, s, hash) {
			return store.ErrRefreshRotated()
		}
		if !current {
			// A retired token presented again: whoever holds it is not the
			// session's current holder, so the whole session ends.
			if s.RevokedAt == nil {
				t.asActor(store.ActorSystem, "")
				if err := t.revokeSession(s.ID, store.RevokedRefreshReuse); err != nil {
					return err
				}
				if err := t.audit(auditEvent{Event: store.EventSessionRefreshReused, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
					Target: store.Target{Type: "session", ID: s.ID}, Metadata: map[string]any{"license_id": s.LicenseID, "user_id": s.UserID, "device_id": s.DeviceID}}); err != nil {
					return err
				}
			}
			return store.ErrRefreshReused()
		}
		reason, v, err := r.cascade(t, ra, s, false)
		if err != nil {
			return err
		}
		if reason != "" {
			return store.ErrSessionInvalid(reason)
		}
		if !t.now.Before(s.RefreshExpiresAt) || !t.now.Before(s.AbsoluteExpires) {
			return store.ErrRefreshExpired()
		}
		ents, _, err := r.entitlements(t, v)
		if err != nil {
			return err
		}
		var roles []string
		if v.user != nil {
			roles = v.user.Roles
		}
		sp := sessionSpec{ra: ra, licenseID: s.LicenseID, userID: s.UserID, deviceID: s.DeviceID, ents: ents, roles: roles, mnt: v.maintenance()}
		seed.SessionID = s.ID
		access, exp, err := r.token(t, sp, seed)
		if err != nil {
			return err
		}
		s.RetiredRefresh = append(slices.Clone(s.RetiredRefresh), s.RefreshHash)
		if n := len(s.RetiredRefresh) - maxRetired; n > 0 {
			// Older retired hashes are forgotten (and a token of the form
			// before `<session id>.<secret>` leaves the index), so neither
			// the record nor the index grows with every rotation: a tagged
			// token is still recognized by its tag, an untagged one is then
			// just unknown (401 invalid_token).
			for _, h := range s.RetiredRefresh[:n] {
				if err := t.delUnique(bSessionsRefresh, []byte(h)); err != nil {
					return err
				}
			}
			s.RetiredRefresh = s.RetiredRefresh[n:]
		}
		refresh := seed.refreshToken(ra.Env)
		s.AccessHash, s.RefreshHash = store.HashSecret(access), store.HashSecret(refresh)
		now := t.now
		s.RotatedAt = &now
		s.AccessExpiresAt = exp
		s.RefreshExpiresAt = minTime(t.now.Add(r.o.RefreshIdleTTL), s.AbsoluteExpires)
		if err := t.put(bSessions, s.ID, s); err != nil {
			return err
		}
		out = &store.RuntimeSession{SessionID: s.ID, AccessToken: access, RefreshToken: refresh, AccessExpiresAt: exp,
			RefreshExpiresAt: s.RefreshExpiresAt, Entitlements: ents}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// presignRefresh signs the rotated access token outside the write
// transaction (see presigned), from a read of the session.
func (r *Runtime) presignRefresh(ctx context.Context, c store.RuntimeClient, token, hash string, seed *tokenSeed) {
	var sp *sessionSpec
	_ = r.db.view(ctx, func(t *txn) error {
		ra, err := r.resolve(t, c)
		if err != nil {
			return nil
		}
		s, err := cachedGet[sessionRecord](r.cache, t, tagSession, bSessions, t.refreshSessionID(token, hash))
		if err != nil || s == nil {
			return nil
		}
		if current, _ := store.RefreshState(hash, s.RefreshHash, s.RetiredRefresh, false); !current {
			return nil
		}
		reason, v, err := r.cascade(t, ra, s, false)
		if err != nil || reason != "" {
			return nil
		}
		ents, _, err := r.entitlements(t, v)
		if err != nil {
			return nil
		}
		var roles []string
		if v.user != nil {
			roles = v.user.Roles
		}
		seed.SessionID = s.ID
		sp = &sessionSpec{ra: ra, licenseID: s.LicenseID, userID: s.UserID, deviceID: s.DeviceID, ents: ents, roles: roles, mnt: v.maintenance()}
		return nil
	})
	if sp != nil {
		r.presign(*sp, seed)
	}
}

// rotatedJustNow reports whether hash is the token the session's last
// rotation retired, presented within the grace of that rotation: a second
// thread of the same client refreshing at the same moment, not a thief.
func (r *Runtime) rotatedJustNow(t *txn, s *sessionRecord, hash string) bool {
	if r.o.RefreshReuseGrace <= 0 || s.RevokedAt != nil || s.RotatedAt == nil || len(s.RetiredRefresh) == 0 {
		return false
	}
	return s.RetiredRefresh[len(s.RetiredRefresh)-1] == hash && t.now.Sub(*s.RotatedAt) < r.o.RefreshReuseGrace
}

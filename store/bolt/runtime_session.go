package bolt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"

	"licensectl/store"
)

// dummy returns a password hash that no password matches, made with the
// hasher's parameters: a login for an unknown e-mail verifies against it so
// that it costs what a wrong password costs.
func (r *Runtime) dummy(ctx context.Context) string {
	r.dummyOnce.Do(func() {
		var b [24]byte
		_, _ = rand.Read(b[:])
		r.dummyHash, _ = r.db.Hasher.Hash(ctx, hex.EncodeToString(b[:]))
	})
	return r.dummyHash
}

// Login implements store.Runtime. The password is verified outside the
// write transaction: argon2id takes tens of milliseconds and must not hold
// the single writer. The transaction re-reads the user and decides.
func (r *Runtime) Login(ctx context.Context, c store.RuntimeClient, in store.RuntimeLoginInput) (*store.RuntimeSession, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	email := in.Email
	if r.db.Hasher == nil {
		return nil, store.Errorf(store.ECodeInternal, "no password hasher configured")
	}
	// A read first: a replay or a disabled application is refused without
	// paying for a password hash.
	var hash, userID string
	var replay error
	err = r.db.view(ctx, func(t *txn) error {
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		replay = r.replayed(t, ra.Env.ID, in.Replay)
		if id := t.lookup(bEndUsersEmail, key(idb(ra.Env.ID), []byte(email))); id != "" {
			u, err := t.endUser(ra.Env.ID, id)
			if err != nil {
				return err
			}
			hash, userID = u.PasswordHash, u.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ok := false
	if replay == nil {
		h := hash
		if h == "" {
			h = r.dummy(ctx)
		}
		match, err := r.db.Hasher.Verify(ctx, in.Password, h)
		if err != nil {
			return nil, err
		}
		ok = match && hash != ""
	}
	seed := newTokenSeed("")
	var out *store.RuntimeSession
	err = r.softBatch(ctx, func(t *txn) error {
		out = nil
		ra, err := r.activeApp(t, c)
		if err != nil {
			return err
		}
		t.asActor(store.ActorEndUser, userID)
		if err := r.consumeNonce(t, ra, in.Replay, "user"); err != nil {
			return err
		}
		out, err = r.login(t, ra, in, userID, hash, ok, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// login opens the session once the password was checked against hash.
func (r *Runtime) login(t *txn, ra *store.RuntimeApp, in store.RuntimeLoginInput, userID, hash string, ok bool, seed tokenSeed) (*store.RuntimeSession, error) {
	var u *store.EndUser
	if userID != "" {
		u = new(store.EndUser)
		found, err := t.get(bEndUsers, userID, u)
		if err != nil {
			return nil, err
		}
		// A password changed since the check invalidates the check.
		if !found || u.EnvID != ra.Env.ID || u.PasswordHash != hash {
			ok = false
		}
	}
	if !ok {
		target := store.Target{Type: "user"}
		if u != nil {
			target.ID = u.ID
		}
		if err := t.audit(auditEvent{Event: store.EventUserLoginFailed, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: target, Metadata: map[string]any{"email": in.Email}}); err != nil {
			return nil, err
		}
		return nil, store.ErrEndUserCredentials()
	}
	switch u.Status {
	case store.UserBanned:
		return nil, store.ErrAccountRefused("banned")
	case store.UserDisabled:
		return nil, store.ErrAccountRefused("disabled")
	}
	dev, err := store.LoginDevice(runtimeTxn{txn: t, r: r}, ra, u, in, seed.DeviceID)
	if err != nil {
		return nil, err
	}
	now := t.now
	prev := *u
	u.LastLoginAt, u.UpdatedAt = &now, now
	if err := t.saveEndUser(&prev, u); err != nil {
		return nil, err
	}
	ents, _, err := r.userEntitlements(t, ra.Env.ID, u.ID, dev.ID)
	if err != nil {
		return nil, err
	}
	sess, err := r.openSession(t, sessionSpec{ra: ra, userID: u.ID, deviceID: dev.ID, ents: ents, roles: u.Roles}, seed)
	if err != nil {
		return nil, err
	}
	if err := t.audit(auditEvent{Event: store.EventUserLogin, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: store.Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"device_id": dev.ID, "session_id": sess.SessionID}}); err != nil {
		return nil, err
	}
	return sess, nil
}

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

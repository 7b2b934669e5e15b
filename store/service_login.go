package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// LoginCandidate is what a runtime login reads before it checks the
// password, outside the write transaction: the end-user of the e-mail
// (UserID "" when there is none) and its password hash, and Replay, the
// refusal the request's timestamp or nonce earns (nil when fresh).
type LoginCandidate struct {
	UserID       string
	PasswordHash string
	Replay       error
}

// dummyPassword is a password hash no password matches, made once with
// the hasher's parameters: a login for an unknown e-mail verifies against
// it, so that it costs what a wrong password costs.
type dummyPassword struct {
	once sync.Once
	hash string
}

func (d *dummyPassword) get(ctx context.Context, h PasswordHasher) string {
	d.once.Do(func() {
		var b [24]byte
		_, _ = rand.Read(b[:])
		d.hash, _ = h.Hash(ctx, hex.EncodeToString(b[:]))
	})
	return d.hash
}

// verify reports whether password matches hash, the stored hash of the
// end-user a sign-in names ("" when there is none, which verifies against
// d's hash and fails: an unknown address costs what a wrong password
// costs). Both password sign-ins, the runtime's and the portal's, check
// this way.
func (d *dummyPassword) verify(ctx context.Context, h PasswordHasher, password, hash string) (bool, error) {
	against := hash
	if against == "" {
		against = d.get(ctx, h)
	}
	match, err := h.Verify(ctx, password, against)
	return match && hash != "", err
}

// Login checks an end-user's password and opens a login session on the
// device of the request's fingerprint (docs/design.md §5). The password is
// verified outside the write transaction: argon2id takes tens of
// milliseconds and must hold neither bbolt's one writer nor a row lock; the
// transaction reads the user again and decides, so a password changed
// meanwhile fails the login. A replayed request or a disabled application is
// refused by the read first, without paying for a hash. Returns
// validation_failed, stale_timestamp, nonce_reused, invalid_credentials,
// account_banned/account_disabled, device_blocked.
func (rs *RuntimeService) Login(ctx context.Context, c RuntimeClient, in RuntimeLoginInput) (*RuntimeSession, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	if rs.hasher == nil {
		return nil, Errorf(ECodeInternal, "no password hasher configured")
	}
	cand, err := rs.storage.ReadLogin(ctx, c, in)
	if err != nil {
		return nil, err
	}
	ok := false
	if cand.Replay == nil {
		if ok, err = rs.dummy.verify(ctx, rs.hasher, in.Password, cand.PasswordHash); err != nil {
			return nil, err
		}
	}
	seed := NewSessionSeed()
	var out *RuntimeSession
	err = rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		ra, err := replayedApp(t, c, in.Replay, ActorEndUser, cand.UserID, "user")
		if err != nil {
			return err
		}
		out, err = login(t, ra, in, cand, ok, seed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// login opens the session once the password was checked against the
// candidate's hash (ok: it matched).
func login(t RuntimeTx, ra *RuntimeApp, in RuntimeLoginInput, cand LoginCandidate, ok bool, seed SessionSeed) (*RuntimeSession, error) {
	var u *EndUser
	if cand.UserID != "" {
		var err error
		u, err = t.LockEndUser(ra.Env.ID, cand.UserID)
		if err != nil && ErrorCode(err) != ECodeNotFound {
			return nil, err
		}
		// A user gone, or a password changed since the check, invalidates
		// the check.
		if u == nil || u.PasswordHash != cand.PasswordHash {
			ok = false
		}
	}
	if !ok {
		target := Target{Type: "user"}
		if u != nil {
			target.ID = u.ID
		}
		if err := t.Audit(AuditEvent{Event: EventUserLoginFailed, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: target, Metadata: map[string]any{"email": in.Email}}); err != nil {
			return nil, err
		}
		return nil, ErrEndUserCredentials()
	}
	switch u.Status {
	case UserBanned:
		return nil, ErrAccountRefused("banned")
	case UserDisabled:
		return nil, ErrAccountRefused("disabled")
	}
	dev, err := loginDevice(t, ra, u, in, seed.DeviceID)
	if err != nil {
		return nil, err
	}
	now := t.Now()
	prev := *u
	u.LastLoginAt, u.UpdatedAt = &now, now
	if err := t.PutEndUser(&prev, u); err != nil {
		return nil, err
	}
	ents, err := t.UserEntitlements(ra.Env.ID, u.ID, dev.ID)
	if err != nil {
		return nil, err
	}
	sess, err := t.OpenSession(ra, SessionSubject{UserID: u.ID, DeviceID: dev.ID, Entitlements: ents, Roles: u.Roles}, seed)
	if err != nil {
		return nil, err
	}
	if err := t.Audit(AuditEvent{Event: EventUserLogin, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
		Target: Target{Type: "user", ID: u.ID}, Metadata: map[string]any{"device_id": dev.ID, "session_id": sess.SessionID}}); err != nil {
		return nil, err
	}
	return sess, nil
}

package bolt

import (
	"context"
	"crypto/subtle"
	"slices"
	"strings"
	"time"

	"licensectl/store"
)

// sessionRecord is a runtime session as stored: store.Session's fields, so
// that one converts to the other without a copy, with short JSON names of
// its own. Tokens are kept only as SHA-256 hashes.
// RetiredRefresh holds the hashes of the last store.MaxRetiredRefresh
// rotated-out refresh tokens: presenting one of them is reuse and revokes the
// session. Refresh tokens name their session (`<session id>.<secret>`); those
// issued before that form have no dot and are found through the refresh-hash
// index, where a retired one stays until it leaves RetiredRefresh.
type sessionRecord struct {
	ID                string     `json:"id"`
	AppID             string     `json:"app"`
	EnvID             string     `json:"env"`
	LicenseID         string     `json:"lic,omitempty"`
	UserID            string     `json:"user,omitempty"`
	DeviceID          string     `json:"dev"`
	AccessHash        string     `json:"ah"`
	RefreshHash       string     `json:"rh"`
	RetiredRefresh    []string   `json:"old,omitempty"`
	AccessExpiresAt   time.Time  `json:"aexp"`
	RefreshExpiresAt  time.Time  `json:"rexp"`
	AbsoluteExpiresAt time.Time  `json:"abs"`
	RevokedAt         *time.Time `json:"revoked,omitempty"`
	RevokeReason      string     `json:"reason,omitempty"`
	CreatedAt         time.Time  `json:"created"`
	LastSeenAt        *time.Time `json:"seen,omitempty"`
	// RotatedAt is when the refresh token was last rotated: the token it
	// retired (the last of RetiredRefresh) is forgiven for a short grace.
	RotatedAt *time.Time `json:"rot,omitempty"`
}

// Session records are read on every validation and written by every
// activation, login and refresh: their short JSON names keep them about
// half the size, and so the pages each commit rewrites fewer.

// tokenSeed is the randomness of a token pair (and of a device an
// activation may create), drawn before a group-commit closure so that a
// rerun of the closure issues the same tokens. pre, when set, is an access
// token signed ahead of the transaction for what the request was expected
// to produce.
type tokenSeed struct {
	SessionID string
	DeviceID  string
	Secret    string
	JTI       string
	pre       *presigned
}

// refreshToken is the refresh token the seed issues in env: `<session
// id>.<secret>` (store.RefreshToken), so that a refresh finds its session by
// the time-ordered id instead of inserting and looking up a random hash in
// an index.
func (s tokenSeed) refreshToken(env *store.Environment) string {
	return store.RefreshToken(env, s.SessionID, s.Secret)
}

// refreshSessionID is the stored id of the session a refresh token names:
// the one before its dot, or, for a token issued before that form (no dot),
// what the hash index holds; nil when neither names one.
func (t *txn) refreshSessionID(token string) []byte {
	if sid, _, ok := strings.Cut(token, "."); ok {
		return idb(sid)
	}
	return t.tx.Bucket(bSessionsRefresh).Get([]byte(store.HashSecret(token)))
}

func newTokenSeed(sessionID string) tokenSeed {
	if sessionID == "" {
		sessionID = store.NewID()
	}
	return tokenSeed{SessionID: sessionID, DeviceID: store.NewID(), Secret: store.NewRefreshRandom(), JTI: store.NewID()}
}

// tokenSeedOf is the seed the orchestration drew, with the token
// PrepareActivation presigned for it.
func tokenSeedOf(s store.SessionSeed) tokenSeed {
	pre, _ := s.Prepared.(*presigned)
	return tokenSeed{SessionID: s.SessionID, DeviceID: s.DeviceID, Secret: s.Secret, JTI: s.JTI, pre: pre}
}

// presigned is an access token signed outside the write transaction.
// Signing (Ed25519 and the JWT encoding) is the costliest step of issuing
// a session, and the write transaction runs on one goroutine for every
// request: so the token is signed in parallel beforehand, from a read of
// what the transaction is expected to find, and the transaction uses it
// only when what it found matches exactly; otherwise it signs afresh.
type presigned struct {
	ra    *store.RuntimeApp
	sub   store.SessionSubject
	sid   string
	token string
	exp   time.Time
}

// presign signs the token for sub in ra ahead of the transaction.
func (r *Runtime) presign(ra *store.RuntimeApp, sub store.SessionSubject, seed *tokenSeed) {
	tok, exp, err := r.o.SignAccess(r.db.Clock(), ra, sub, seed.SessionID, seed.JTI)
	if err == nil {
		seed.pre = &presigned{ra: ra, sub: sub, sid: seed.SessionID, token: tok, exp: exp}
	}
}

// matches reports whether a presigned token says what ra, sub and sid say.
func (p *presigned) matches(ra *store.RuntimeApp, sub store.SessionSubject, sid string) bool {
	return p != nil && p.sid == sid && p.ra.App.ID == ra.App.ID && p.ra.Env.ID == ra.Env.ID &&
		p.sub.LicenseID == sub.LicenseID && p.sub.UserID == sub.UserID && p.sub.DeviceID == sub.DeviceID &&
		slices.Equal(p.sub.Entitlements, sub.Entitlements) && slices.Equal(p.sub.Roles, sub.Roles) &&
		sameTime(p.sub.MaintenanceExpiresAt, sub.MaintenanceExpiresAt)
}

// token returns the access token for sub in ra: the presigned one when it
// matches, else one signed now.
func (r *Runtime) token(t *txn, ra *store.RuntimeApp, sub store.SessionSubject, seed tokenSeed) (string, time.Time, error) {
	if seed.pre.matches(ra, sub, seed.SessionID) {
		return seed.pre.token, seed.pre.exp, nil
	}
	return r.o.SignAccess(t.now, ra, sub, seed.SessionID, seed.JTI)
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// openSession writes a new session of sub in ra and its indexes and returns
// its tokens.
func (r *Runtime) openSession(t *txn, ra *store.RuntimeApp, sub store.SessionSubject, seed tokenSeed) (*store.RuntimeSession, error) {
	access, exp, err := r.token(t, ra, sub, seed)
	if err != nil {
		return nil, err
	}
	rexp, abs := r.o.RefreshExpiries(t.now)
	refresh := seed.refreshToken(ra.Env)
	s := &sessionRecord{
		ID: seed.SessionID, AppID: ra.App.ID, EnvID: ra.Env.ID, LicenseID: sub.LicenseID, UserID: sub.UserID, DeviceID: sub.DeviceID,
		AccessHash: store.HashSecret(access), RefreshHash: store.HashSecret(refresh),
		AccessExpiresAt: exp, RefreshExpiresAt: rexp, AbsoluteExpiresAt: abs, CreatedAt: t.now,
	}
	if err := t.put(bSessions, s.ID, s); err != nil {
		return nil, err
	}
	// Both tokens carry the session id (the access token's sid claim, the
	// refresh token's prefix): no token-hash index entries, whose random
	// keys would dirty a page each per new session.
	// These indexes are only walked (to revoke), never counted, so they
	// skip the counts bucket: one page less to rewrite per session.
	for _, ix := range []struct {
		bucket []byte
		owner  string
	}{{bSessionsUser, s.UserID}, {bSessionsDevice, s.DeviceID}} {
		if ix.owner == "" {
			continue
		}
		if err := t.tx.Bucket(ix.bucket).Put(key(idb(ix.owner), idb(s.ID)), []byte{}); err != nil {
			return nil, err
		}
	}
	return &store.RuntimeSession{SessionID: s.ID, AccessToken: access, RefreshToken: refresh, AccessExpiresAt: exp,
		RefreshExpiresAt: s.RefreshExpiresAt, Entitlements: sub.Entitlements}, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// sessionView is a session with the records its cascade read, all shared
// read-only copies from the decode cache.
type sessionView struct {
	s    *sessionRecord
	ra   *store.RuntimeApp
	lic  *store.License
	user *store.EndUser
	dev  *store.Device
}

// findByAccess returns the session an access token names, or nil: the
// session of the id the token carries, when the token's hash (hash) is the
// one the session stored. The id is public and read unverified, so the
// hashes are compared in constant time, as store.RefreshState does.
func (r *Runtime) findByAccess(t *txn, token, hash string) (*sessionRecord, error) {
	if r.o.SessionOf == nil {
		return nil, nil
	}
	id := idb(r.o.SessionOf(token))
	if id == nil {
		return nil, nil
	}
	s, err := cachedGet[sessionRecord](r.cache, t, tagSession, bSessions, id)
	if err != nil || s == nil || subtle.ConstantTimeCompare([]byte(s.AccessHash), []byte(hash)) != 1 {
		return nil, err
	}
	return s, nil
}

// cascade checks a session of ra (store.SessionView.Reason) and returns
// the first reason it is not usable, or "", with the records it read.
// checkExpiry includes the access token's expiry (refresh checks its own
// lifetimes instead).
func (r *Runtime) cascade(t *txn, ra *store.RuntimeApp, s *sessionRecord, checkExpiry bool) (string, *sessionView, error) {
	sv, err := r.records(t, s, false)
	if err != nil {
		return "", nil, err
	}
	return sv.Reason(ra, t.now, checkExpiry), &sessionView{s: s, ra: ra, lic: sv.License, user: sv.User, dev: sv.Device}, nil
}

// records reads from the decode cache the records of s's cascade (none
// when s is nil), and with withPlan its license's plan. The view is a
// value: validation reads one per request.
func (r *Runtime) records(t *txn, s *sessionRecord, withPlan bool) (v store.SessionView, err error) {
	v.Session = (*store.Session)(s)
	if s == nil {
		return v, nil
	}
	if s.LicenseID != "" {
		if v.License, err = cachedGet[store.License](r.cache, t, tagLicense, bLicenses, idb(s.LicenseID)); err != nil {
			return v, err
		}
		if withPlan && v.License != nil {
			if v.Plan, err = cachedGet[store.Plan](r.cache, t, tagPlan, bPlans, idb(v.License.PlanID)); err != nil {
				return v, err
			}
		}
	}
	if s.UserID != "" {
		if v.User, err = cachedGet[store.EndUser](r.cache, t, tagUser, bEndUsers, idb(s.UserID)); err != nil {
			return v, err
		}
	}
	v.Device, err = cachedGet[store.Device](r.cache, t, tagDevice, bDevices, idb(s.DeviceID))
	return v, err
}

// entitlements are the current entitlements of a session: its license's, or
// for a login session the union of its user's usable licenses, with when
// the answer turns by itself (userEntitlements; farFuture for a license
// session, whose lease Validate bounds on its own).
func (r *Runtime) entitlements(t *txn, v *sessionView) ([]string, time.Time, error) {
	if v.lic != nil {
		keys, err := r.licenseEntitlements(t, v.lic, nil)
		if err != nil {
			return nil, farFuture, err
		}
		return store.KeySet(keys), farFuture, nil
	}
	return r.userEntitlements(t, v.s.EnvID, v.s.UserID, v.s.DeviceID)
}

// RevokeSession implements store.RuntimeTx, on a fresh copy of the
// record, never the cached one.
func (t runtimeTxn) RevokeSession(id, reason string) (bool, error) {
	s := new(sessionRecord)
	if err := t.mustGet(bSessions, id, "session", s); err != nil {
		return false, err
	}
	if s.RevokedAt != nil {
		return false, nil
	}
	now := t.now
	s.RevokedAt, s.RevokeReason = &now, reason
	return true, t.put(bSessions, id, s)
}

// sessionsDue reports whether the oldest session is past its absolute
// lifetime (store.SweepChecker).
func (db *DB) sessionsDue(ctx context.Context) (bool, error) {
	due := false
	err := db.view(ctx, func(t *txn) error {
		k, v := t.tx.Bucket(bSessions).Cursor().First()
		if v == nil {
			return nil
		}
		s := new(sessionRecord)
		if err := decode(bSessions, k, v, s); err != nil {
			return err
		}
		due = !t.now.Before(s.AbsoluteExpiresAt)
		return nil
	})
	return due, err
}

// DeleteExpiredSessions implements store.Tx. Session ids are time-ordered
// and every session lives the same absolute lifetime, so the walk stops at
// the first session still alive.
func (t *txn) DeleteExpiredSessions(limit int) (int, error) {
	n := 0
	c := t.tx.Bucket(bSessions).Cursor()
	for k, v := c.First(); k != nil && n < limit; k, v = c.First() {
		s := new(sessionRecord)
		if err := decode(bSessions, k, v, s); err != nil {
			return n, err
		}
		if t.now.Before(s.AbsoluteExpiresAt) {
			return n, nil
		}
		for _, ix := range []struct {
			bucket []byte
			owner  string
		}{{bSessionsUser, s.UserID}, {bSessionsDevice, s.DeviceID}} {
			if ix.owner != "" {
				if err := t.tx.Bucket(ix.bucket).Delete(key(idb(ix.owner), idb(s.ID))); err != nil {
					return n, err
				}
			}
		}
		if err := t.deleteSessionRecord(s.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

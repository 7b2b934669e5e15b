package store

import (
	"context"
	"slices"
	"time"
)

// Session is a runtime session as both storages keep it: tokens only as
// SHA-256 hashes; RetiredRefresh the hashes of the last MaxRetiredRefresh
// rotated-out refresh tokens, whose presentation is reuse and revokes the
// session (docs/design.md §5). bbolt's record has the same fields, so a
// record converts to a Session without a copy.
type Session struct {
	ID                string
	AppID             string
	EnvID             string
	LicenseID         string
	UserID            string
	DeviceID          string
	AccessHash        string
	RefreshHash       string
	RetiredRefresh    []string
	AccessExpiresAt   time.Time
	RefreshExpiresAt  time.Time
	AbsoluteExpiresAt time.Time
	RevokedAt         *time.Time
	RevokeReason      string
	CreatedAt         time.Time
	LastSeenAt        *time.Time
	// RotatedAt is when the refresh token was last rotated: the token it
	// retired (the last of RetiredRefresh) is forgiven for a short grace.
	RotatedAt *time.Time
}

// MaxRetiredRefresh is how many rotated-out refresh tokens a session still
// recognizes as reuse by their hash; it bounds the record, read on every
// validation. A tagged token retired longer ago is still recognized by its
// tag (RefreshTokenIssued); an untagged one is then just unknown.
const MaxRetiredRefresh = 4

// SessionView is a session with the records its cascade reads: its
// license (nil for a login session), the license's plan (nil when gone),
// its user (nil for a license session without one) and its device. A
// storage may hand out shared read-only copies: the orchestration never
// modifies them in place.
type SessionView struct {
	Session *Session // nil: no session the token names
	License *License
	Plan    *Plan
	User    *EndUser
	Device  *Device
}

// Reason checks the session of ra in the order of docs/design.md §5 and
// returns the first reason it is not usable, or "". checkExpiry includes
// the access token's expiry (a refresh checks its own lifetimes instead).
func (v *SessionView) Reason(ra *RuntimeApp, now time.Time, checkExpiry bool) string {
	s := v.Session
	if s == nil || s.AppID != ra.App.ID || s.EnvID != ra.Env.ID {
		return ReasonTokenInvalid
	}
	if (s.LicenseID != "" && v.License == nil) || (s.UserID != "" && v.User == nil) || v.Device == nil {
		return ReasonTokenInvalid
	}
	if reason := SessionReason(ra.App, v.License, v.User, v.Device, now); reason != "" {
		return reason
	}
	if s.RevokedAt != nil {
		return ReasonSessionRevoked
	}
	if checkExpiry && !now.Before(s.AccessExpiresAt) {
		return ReasonTokenExpired
	}
	return ""
}

// Subject is what the session's access tokens say, with its current
// entitlements ents: the roles of its user and the maintenance end of its
// license (claim mnt; nil for a login session or a license without one).
func (v *SessionView) Subject(ents []string) SessionSubject {
	s := SessionSubject{LicenseID: v.Session.LicenseID, UserID: v.Session.UserID, DeviceID: v.Session.DeviceID, Entitlements: ents}
	if v.User != nil {
		s.Roles = v.User.Roles
	}
	if v.License != nil {
		s.MaintenanceExpiresAt = v.License.MaintenanceExpiresAt
	}
	return s
}

// RotatedJustNow reports whether hash is the token the session's last
// rotation retired, presented within grace of that rotation: a second
// thread of the same client refreshing at the same moment, not a thief.
func (s *Session) RotatedJustNow(hash string, now time.Time, grace time.Duration) bool {
	if grace <= 0 || s.RevokedAt != nil || s.RotatedAt == nil || len(s.RetiredRefresh) == 0 {
		return false
	}
	return s.RetiredRefresh[len(s.RetiredRefresh)-1] == hash && now.Sub(*s.RotatedAt) < grace
}

// Rotated is the session after a rotation at now to the tokens hashed as
// accessHash and refreshHash, the access token valid until accessExp: the
// current refresh token retired (the oldest beyond MaxRetiredRefresh
// forgotten, so that the record does not grow with every rotation), the
// refresh token idle for at most idle and never past the absolute
// lifetime. s is not modified.
func (s *Session) Rotated(accessHash, refreshHash string, accessExp, now time.Time, idle time.Duration) Session {
	next := *s
	retired := append(slices.Clone(s.RetiredRefresh), s.RefreshHash)
	if n := len(retired) - MaxRetiredRefresh; n > 0 {
		retired = retired[n:]
	}
	next.RetiredRefresh = retired
	next.AccessHash, next.RefreshHash = accessHash, refreshHash
	next.RotatedAt = &now
	next.AccessExpiresAt = accessExp
	next.RefreshExpiresAt = now.Add(idle)
	if s.AbsoluteExpiresAt.Before(next.RefreshExpiresAt) {
		next.RefreshExpiresAt = s.AbsoluteExpiresAt
	}
	return next
}

// SessionTx is the part of RuntimeTx that the session changes use.
type SessionTx interface {
	// SessionByRefresh resolves client c's application and environment,
	// disabled or not, and reads the session a refresh token names (by the
	// id before its dot, or for a token of the form before that by its
	// hash, current or retired) with its cascade's records. The view's
	// Session is nil when the token names none. Returns
	// invalid_application.
	SessionByRefresh(c RuntimeClient, refreshToken string) (*RuntimeApp, *SessionView, error)
	// SessionByAccess is SessionByRefresh for the session of an access
	// token, whose hash the session must have stored.
	SessionByAccess(c RuntimeClient, accessToken string) (*RuntimeApp, *SessionView, error)
	// SessionEntitlements returns the keys the session of v grants now,
	// sorted: its license's (its plan's and its own), or for a login
	// session those UserEntitlements gives its user on its device.
	SessionEntitlements(v *SessionView) ([]string, error)
	// SignAccess issues an access token of session sid about s in ra at
	// Now, with seed's token id, and returns it with its expiry: one a
	// RefreshPreparer signed ahead when it says exactly that, else one
	// signed now.
	SignAccess(ra *RuntimeApp, sid string, s SessionSubject, seed SessionSeed) (string, time.Time, error)
	// RotateSession writes next in place of prev, as long as prev's
	// refresh token is still the session's current one and the session is
	// live; false (and nothing written) when another transaction rotated
	// or revoked it since prev was read.
	RotateSession(prev, next *Session) (bool, error)
	// RevokeSession marks the session revoked for reason, unless it is
	// already; true when this call revoked it.
	RevokeSession(id, reason string) (bool, error)
}

// RefreshPreparer is a RuntimeStorage that readies part of a refresh
// outside its write transaction (bbolt signs the rotated access token
// there, off its one writer). What it readies goes into seed and is used
// only if the transaction finds what was expected.
type RefreshPreparer interface {
	PrepareRefresh(ctx context.Context, c RuntimeClient, refreshToken string, seed *SessionSeed)
}

// refreshAttempts bounds how often a refresh reads its session again after
// losing it to a concurrent rotation or revocation (RuntimeTx.RotateSession).
const refreshAttempts = 3

// Refresh rotates the token pair of the session a refresh token names
// (docs/design.md §5). A retired token presented again revokes the whole
// session, once, with session.refresh_reused, unless it is the one the last
// rotation retired within the grace. Of the refreshes of one token on every
// server exactly one wins: the rotation is written only while the token is
// still the session's current one, and a loser reads the session again and
// is told it rotated (§12). Returns invalid_token, application_disabled,
// refresh_rotated, refresh_reused, session_invalid.
func (rs *RuntimeService) Refresh(ctx context.Context, c RuntimeClient, refreshToken string) (*RuntimeSession, error) {
	if refreshToken == "" {
		return nil, ErrUnknownRefreshToken()
	}
	hash := HashSecret(refreshToken)
	seed := NewSessionSeed()
	if p, ok := rs.storage.(RefreshPreparer); ok {
		p.PrepareRefresh(ctx, c, refreshToken, &seed)
	}
	var out *RuntimeSession
	err := rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		for range refreshAttempts {
			ra, v, err := t.SessionByRefresh(c, refreshToken)
			if err != nil {
				return err
			}
			if out, err = rs.rotate(t, ra, v, refreshToken, hash, seed); out != nil || err != nil {
				return err
			}
		}
		return ErrRecordBusy()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rotate decides a refresh on the session of v as read, and rotates its
// pair when hash is its current token. It returns nil and no error when
// another transaction rotated or revoked the session since v was read.
func (rs *RuntimeService) rotate(t RuntimeTx, ra *RuntimeApp, v *SessionView, token, hash string, seed SessionSeed) (*RuntimeSession, error) {
	s := v.Session
	var current, known bool
	if s != nil {
		current, known = RefreshState(hash, s.RefreshHash, s.RetiredRefresh, RefreshTokenIssued(ra.Env, token))
	}
	// A token naming a session whose hashes and tag it does not match is
	// unknown, not reuse: the session id alone is no proof of holding the
	// session.
	if !known || s.AppID != ra.App.ID || s.EnvID != ra.Env.ID {
		return nil, ErrUnknownRefreshToken()
	}
	if err := ra.App.CheckActive(); err != nil {
		return nil, err
	}
	now := t.Now()
	if !current {
		if s.RotatedJustNow(hash, now, rs.opts.RefreshReuseGrace) {
			return nil, ErrRefreshRotated()
		}
		// A retired token presented again: whoever holds it is not the
		// session's current holder, so the whole session ends, once.
		revoked, err := t.RevokeSession(s.ID, RevokedRefreshReuse)
		if err != nil {
			return nil, err
		}
		if revoked {
			t.ActAs(ActorSystem, "")
			if err := t.Audit(AuditEvent{Event: EventSessionRefreshReused, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
				Target: Target{Type: "session", ID: s.ID}, Metadata: map[string]any{"license_id": s.LicenseID, "user_id": s.UserID, "device_id": s.DeviceID}}); err != nil {
				return nil, err
			}
		}
		return nil, ErrRefreshReused()
	}
	if reason := v.Reason(ra, now, false); reason != "" {
		return nil, ErrSessionInvalid(reason)
	}
	if !now.Before(s.RefreshExpiresAt) || !now.Before(s.AbsoluteExpiresAt) {
		return nil, ErrRefreshExpired()
	}
	ents, err := t.SessionEntitlements(v)
	if err != nil {
		return nil, err
	}
	access, exp, err := t.SignAccess(ra, s.ID, v.Subject(ents), seed)
	if err != nil {
		return nil, err
	}
	refresh := RefreshToken(ra.Env, s.ID, seed.Secret)
	next := s.Rotated(HashSecret(access), HashSecret(refresh), exp, now, rs.opts.RefreshIdleTTL)
	if ok, err := t.RotateSession(s, &next); err != nil || !ok {
		return nil, err
	}
	return &RuntimeSession{SessionID: s.ID, AccessToken: access, RefreshToken: refresh, AccessExpiresAt: exp,
		RefreshExpiresAt: next.RefreshExpiresAt, Entitlements: ents}, nil
}

// Logout ends the session of an access token. The application is resolved
// but not required active: a disabled application's users may still end
// their sessions. Returns invalid_application, invalid_token.
func (rs *RuntimeService) Logout(ctx context.Context, c RuntimeClient, accessToken string) error {
	if accessToken == "" {
		return ErrUnknownAccessToken()
	}
	return rs.update(ctx, func(t RuntimeTx) error {
		ra, v, err := t.SessionByAccess(c, accessToken)
		if err != nil {
			return err
		}
		if s := v.Session; s == nil || s.AppID != ra.App.ID || s.EnvID != ra.Env.ID {
			return ErrUnknownAccessToken()
		}
		_, err = t.RevokeSession(v.Session.ID, RevokedLogout)
		return err
	})
}

// CheckoutMachineFile checks out a machine file for offline use on the
// device of an activation session (docs/design.md §6): one write consumes
// the nonce, checks the session and records license.checked_out; the caller
// signs the file from what it returns. Returns validation_failed,
// stale_timestamp, nonce_reused, session_invalid, not_activation_session,
// license_mismatch, offline_not_allowed.
func (rs *RuntimeService) CheckoutMachineFile(ctx context.Context, c RuntimeClient, in MachineFileInput) (*MachineFile, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var out *MachineFile
	err := rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		ra, err := t.ActiveApp(c)
		if err != nil {
			return err
		}
		if err := t.ConsumeNonce(ra, in.Replay, "license"); err != nil {
			return err
		}
		v, err := activationSession(t, c, ra, in.AccessToken)
		if err != nil {
			return err
		}
		l := v.License
		t.ActAs(ActorLicense, l.ID)
		if in.LicenseKey != "" && NormalizeLicenseKey(in.LicenseKey) != l.Key {
			return ErrLicenseMismatch()
		}
		p := PlanOrDefaults(v.Plan)
		ttl, err := MachineFileTTL(in.TTL, p.OfflineDays())
		if err != nil {
			return err
		}
		ents, err := t.SessionEntitlements(v)
		if err != nil {
			return err
		}
		if out, err = licenseMachineFile(t, ra, l, p, v.Device, ents, ttl); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventLicenseCheckedOut, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": v.Device.ID,
				"expires_at": out.ExpiresAt.Format(time.RFC3339Nano), "by": "runtime"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// activationSession reads the live activation session of an access token
// of client c (resolved as ra). Returns session_invalid,
// not_activation_session (a login session).
func activationSession(t RuntimeTx, c RuntimeClient, ra *RuntimeApp, accessToken string) (*SessionView, error) {
	v := new(SessionView)
	if accessToken != "" {
		var err error
		if _, v, err = t.SessionByAccess(c, accessToken); err != nil {
			return nil, err
		}
	}
	if reason := v.Reason(ra, t.Now(), true); reason != "" {
		return nil, ErrSessionInvalid(reason)
	}
	if v.License == nil {
		return nil, ErrNotActivationSession()
	}
	return v, nil
}

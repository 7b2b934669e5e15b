package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"licensectl/store"
)

// tokenSeed is the randomness of a token pair (and of a device an activation
// may create), drawn before the transaction so that a rerun of it after a
// deadlock issues the same tokens.
type tokenSeed struct {
	SessionID string
	DeviceID  string
	Secret    string
	JTI       string
}

func newTokenSeed(sessionID string) tokenSeed {
	if sessionID == "" {
		sessionID = store.NewID()
	}
	return tokenSeed{SessionID: sessionID, DeviceID: store.NewID(), Secret: store.NewRefreshRandom(), JTI: store.NewID()}
}

// refreshToken is the refresh token the seed issues in env: `<session
// id>.<secret>` (store.RefreshToken).
func (s tokenSeed) refreshToken(env *store.Environment) string {
	return store.RefreshToken(env, s.SessionID, s.Secret)
}

// openSession writes a new session of sub in ra and returns its tokens.
func (r *Runtime) openSession(t *txn, ra *store.RuntimeApp, sub store.SessionSubject, seed tokenSeed) (*store.RuntimeSession, error) {
	access, exp, err := r.o.SignAccess(t.now, ra, sub, seed.SessionID, seed.JTI)
	if err != nil {
		return nil, err
	}
	rexp, abs := r.o.RefreshExpiries(t.now)
	refresh := seed.refreshToken(ra.Env)
	if _, err := t.exec(`INSERT INTO sessions (id, app_id, env_id, license_id, user_id, device_id, access_hash, refresh_hash,
		access_expires_at, refresh_expires_at, absolute_expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		seed.SessionID, ra.App.ID, ra.Env.ID, nullID(sub.LicenseID), nullID(sub.UserID), sub.DeviceID,
		store.HashSecret(access), store.HashSecret(refresh), exp, rexp, abs, t.now); err != nil {
		return nil, err
	}
	return &store.RuntimeSession{SessionID: seed.SessionID, AccessToken: access, RefreshToken: refresh, AccessExpiresAt: exp,
		RefreshExpiresAt: rexp, Entitlements: sub.Entitlements}, nil
}

// sessionView is a session with everything its cascade and its entitlements
// read, loaded by one query (sessionViewSQL).
type sessionView struct {
	ra   *store.RuntimeApp
	s    *store.Session // nil: no such session
	lic  *store.License
	user *store.EndUser
	dev  *store.Device
	plan *store.Plan
	// licKeys are the keys of the license's entitlements (its plan's and
	// its own); userLics the user's licenses of the environment with
	// theirs, for a login session.
	licKeys  []string
	userLics []rtUserLicense
	// leased: the device holds a live lease of the license.
	leased bool
}

// rtUserLicense is a license of a login session's user with the keys of
// its entitlements, whether it has floating seats, and when the live lease
// of the session's device on it ends (none: nil).
type rtUserLicense struct {
	License   store.License `json:"l"`
	Keys      []string      `json:"k"`
	Floating  bool          `json:"f"`
	LeaseEnds *time.Time    `json:"e"`
}

// How a view finds its session: by the hash of an access token, by id, or
// by the hash of a refresh token of the form before `<session id>.<secret>`,
// current or retired.
const (
	rtByAccess       = `s.access_hash = $1`
	rtByID           = `s.id = $1`
	rtByLegacyRefesh = `(s.refresh_hash = $1 OR s.retired_refresh @> ARRAY[$1::text])`
)

// rtIDs is the set of entitlement ids a doc's EntitlementIDs names (none
// when the doc or the field is absent or null).
func rtIDs(docExpr string) string {
	return fmt.Sprintf(`SELECT x::uuid FROM json_array_elements_text(CASE json_typeof(%[1]s->'EntitlementIDs') WHEN 'array' THEN %[1]s->'EntitlementIDs' ELSE '[]' END) x`, docExpr)
}

// rtKeysExpr is the keys of the entitlements of a license doc and its
// plan's doc; a deleted entitlement grants nothing. The ids are gathered
// first (= ANY of an array), so that the entitlements are looked up by
// their primary key, never scanned.
func rtKeysExpr(licDoc, planDoc string) string {
	return `ARRAY(SELECT en.key FROM entitlements en WHERE en.id = ANY (ARRAY(` + rtIDs(planDoc) + ` UNION ` + rtIDs(licDoc) + `)))`
}

// rtUserLicsExpr is the licenses of a user in an environment with their
// entitlement keys and the live lease (at nowExpr) of a device on each, as a
// JSON array of rtUserLicense.
func rtUserLicsExpr(envExpr, userExpr, deviceExpr, nowExpr string) string {
	return `(SELECT json_agg(json_build_object('l', ul.doc, 'k', ` + rtKeysExpr("ul.doc", "up.doc") + `,
			'f', coalesce((up.doc->>'MaxConcurrent')::int, 0) > 0,
			'e', (SELECT max(le.expires_at) FROM leases le WHERE le.license_id = ul.id AND le.device_id = ` + deviceExpr + ` AND le.expires_at > ` + nowExpr + `)))
		FROM licenses ul LEFT JOIN plans up ON up.id = ul.plan_id WHERE ul.env_id = ` + envExpr + ` AND ul.user_id = ` + userExpr + `)`
}

// sessionViewSQL is the one query of a view: the client's application
// environment (by the condition envWhere, its arguments from $3), the
// session found by sessWhere ($1), its license, user, device and plan, the
// entitlement keys, and whether the device holds a live lease at $2.
func sessionViewSQL(sessWhere, envWhere string) string {
	return `SELECT a.doc, e.id::text, s.id IS NOT NULL,
		coalesce(s.id::text, ''), coalesce(s.app_id::text, ''), coalesce(s.env_id::text, ''), coalesce(s.license_id::text, ''),
		coalesce(s.user_id::text, ''), coalesce(s.device_id::text, ''), coalesce(s.access_hash, ''), coalesce(s.refresh_hash, ''),
		coalesce(s.retired_refresh, '{}'), coalesce(s.access_expires_at, 'epoch'), coalesce(s.refresh_expires_at, 'epoch'),
		coalesce(s.absolute_expires_at, 'epoch'), s.revoked_at, coalesce(s.revoke_reason, ''), coalesce(s.created_at, 'epoch'),
		s.last_seen_at, s.rotated_at,
		l.doc, coalesce(l.devices_count, 0), u.doc, d.doc, p.doc,
		` + rtKeysExpr("l.doc", "p.doc") + `,
		CASE WHEN s.license_id IS NULL AND s.user_id IS NOT NULL THEN ` + rtUserLicsExpr("s.env_id", "s.user_id", "s.device_id", "$2") + ` END,
		EXISTS (SELECT 1 FROM leases le WHERE le.license_id = l.id AND le.device_id = s.device_id AND le.expires_at > $2)
	FROM app_envs e JOIN apps a ON a.id = e.app_id
	LEFT JOIN sessions s ON ` + sessWhere + `
	LEFT JOIN licenses l ON l.id = s.license_id
	LEFT JOIN end_users u ON u.id = s.user_id
	LEFT JOIN devices d ON d.id = s.device_id
	LEFT JOIN plans p ON p.id = l.plan_id
	WHERE ` + envWhere + ` LIMIT 1`
}

// view loads, in one query, the application environment c names and the
// session sessWhere finds with key, with every record of its cascade.
// Returns invalid_application and validation_failed (environment name).
func (r *Runtime) view(ctx context.Context, q rtQuerier, c store.RuntimeClient, sessWhere string, key any, now time.Time) (*sessionView, error) {
	where, args, err := rtEnvWhere(c)
	if err != nil {
		return nil, err
	}
	// The environment's parameters follow the session's ($1) and the time ($2).
	where = rtEnvAfter(where, 2)
	var (
		appDoc, licDoc, userDoc, devDoc, planDoc, userLics []byte
		envID                                              string
		found                                              bool
		s                                                  store.Session
		devices                                            int
		v                                                  sessionView
	)
	err = q.QueryRow(ctx, sessionViewSQL(sessWhere, where), append([]any{key, now}, args...)...).Scan(
		&appDoc, &envID, &found,
		&s.ID, &s.AppID, &s.EnvID, &s.LicenseID, &s.UserID, &s.DeviceID, &s.AccessHash, &s.RefreshHash,
		&s.RetiredRefresh, &s.AccessExpiresAt, &s.RefreshExpiresAt, &s.AbsoluteExpiresAt, &s.RevokedAt, &s.RevokeReason, &s.CreatedAt,
		&s.LastSeenAt, &s.RotatedAt,
		&licDoc, &devices, &userDoc, &devDoc, &planDoc, &v.licKeys, &userLics, &v.leased)
	if noRows(err) {
		return nil, store.ErrUnknownApp()
	}
	if err != nil {
		return nil, mapError(err)
	}
	if v.ra, err = rtApp(appDoc, envID); err != nil {
		return nil, err
	}
	if !found {
		return &v, nil
	}
	v.s = &s
	if licDoc != nil {
		if v.lic, err = decodeLicense(licDoc, devices); err != nil {
			return nil, err
		}
	}
	if userDoc != nil {
		if v.user, err = decode[store.EndUser](userDoc); err != nil {
			return nil, err
		}
	}
	if devDoc != nil {
		if v.dev, err = decode[store.Device](devDoc); err != nil {
			return nil, err
		}
	}
	if planDoc != nil {
		if v.plan, err = decode[store.Plan](planDoc); err != nil {
			return nil, err
		}
	}
	if userLics != nil {
		if err := json.Unmarshal(userLics, &v.userLics); err != nil {
			return nil, fmt.Errorf("decode the licenses of a session's user: %w", err)
		}
	}
	return &v, nil
}

// public is the view as the orchestration reads it.
func (v *sessionView) public() *store.SessionView {
	return &store.SessionView{Session: v.s, License: v.lic, Plan: v.plan, User: v.user, Device: v.dev}
}

// cascade checks the view's session (store.SessionView.Reason) and returns
// the first reason it is not usable, or "". checkExpiry includes the
// access token's expiry (refresh checks its own lifetimes instead).
func (v *sessionView) cascade(now time.Time, checkExpiry bool) string {
	return v.public().Reason(v.ra, now, checkExpiry)
}

// leaseReason is lease_required when the session's license has floating
// seats (docs/design.md §13) and its device holds no live lease.
func (v *sessionView) leaseReason() string {
	if v.lic == nil || v.plan == nil || v.plan.MaxConcurrent == 0 || v.leased {
		return ""
	}
	return store.ReasonLeaseRequired
}

// entitlements are the current entitlements of the view's session: its
// license's, or for a login session the union of its user's usable
// licenses'.
func (v *sessionView) entitlements(now time.Time) []string {
	if v.lic != nil {
		return store.KeySet(v.licKeys)
	}
	return rtUsableKeys(v.userLics, now)
}

// rtUsableKeys is the union of the keys of the licenses a login grants: those
// inactive or active at now, and of those with floating seats only the ones
// the session's device holds a live lease of (docs/design.md §13).
func rtUsableKeys(lics []rtUserLicense, now time.Time) []string {
	var keys []string
	for i := range lics {
		if st := lics[i].License.EffectiveStatus(now); st != store.LicenseActive && st != store.LicenseInactive {
			continue
		}
		if lics[i].Floating && (lics[i].LeaseEnds == nil || !lics[i].LeaseEnds.After(now)) {
			continue
		}
		keys = append(keys, lics[i].Keys...)
	}
	return store.KeySet(keys)
}

// DeleteExpiredSessions implements store.Tx.
func (t *txn) DeleteExpiredSessions(limit int) (int, error) {
	n, err := t.exec(`DELETE FROM sessions WHERE id IN (
		SELECT id FROM sessions WHERE absolute_expires_at <= $1 ORDER BY absolute_expires_at LIMIT $2)`, t.now, limit)
	return int(n), err
}

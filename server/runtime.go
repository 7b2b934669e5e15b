package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/server/rttoken"
	"licensectl/store"
)

// runtimeAPI is the state of the runtime API: its store, rate limiters and
// the monthly request counter.
type runtimeAPI struct {
	store   store.RuntimeBackend
	ipLimit *limiter // every runtime call, per client IP
	auLimit *limiter // register, login, activate, per client IP
	dvLimit *limiter // the devices list, per license
	mgLimit *limiter // management calls, per credential
	// logins throttles runtime logins per account (application environment
	// and e-mail) and client address; nil when off.
	logins *loginThrottle
	usage  *usageCounter
	// writes admits the runtime's writes (docs/design.md §14).
	writes *writeAdmission
}

// newRuntime builds the runtime API's state: the store's runtime with the
// token signer, the rate limiters, the login throttle and the usage counter.
// Its workers are listed with the others (workers.go).
func (s *Server) newRuntime() *runtimeAPI {
	c := s.cfg.Runtime
	rt := &runtimeAPI{store: s.db.OpenRuntime(store.RuntimeOptions{
		Signer: rttoken.Sign, SessionOf: rttoken.SessionID, Issuer: c.Issuer, AccessTTL: c.AccessTTL, RefreshIdleTTL: c.RefreshIdleTTL,
		RefreshAbsoluteTTL: c.RefreshAbsoluteTTL, ReplayWindow: c.ReplayWindow, RefreshReuseGrace: c.RefreshReuseGrace,
	})}
	if rl := s.cfg.RateLimit; rl.Enabled {
		rt.ipLimit = newLimiter(rl.Runtime, rl.Window, s.now)
		rt.auLimit = newLimiter(rl.RuntimeAuth, rl.Window, s.now)
		rt.dvLimit = newLimiter(rl.RuntimeDevices, rl.Window, s.now)
		rt.mgLimit = newLimiter(rl.Management, rl.Window, s.now)
	}
	rt.logins = newLoginThrottle(s.cfg.RateLimit, s.db, "runtime", s.acct.challenger, s.logger)
	rt.usage = newUsageCounter(rt.store, s.db, s.now)
	rt.writes = newWriteAdmission(s.cfg.Server.MaxQueueWait, s.writeSlots)
	return rt
}

// flushSeen writes the devices' last-seen times held in memory.
func (s *Server) flushSeen(ctx context.Context) {
	if _, err := s.rt.store.FlushSeen(ctx); err != nil {
		s.logger.Error("flush last seen", "err", err)
	}
}

// flushUsage writes the runtime request counts held in memory.
func (s *Server) flushUsage(ctx context.Context) {
	if err := s.rt.usage.flush(ctx); err != nil {
		s.logger.Error("flush runtime usage", "err", err)
	}
}

// sweepSessions removes sessions past their absolute lifetime, expired
// seat leases (live by their expiry at read time: this only removes dead
// ones and tells webhooks they expired), nonces past their window, and the
// closed windows of the shared counters (login throttles, mail cap).
func (s *Server) sweepSessions(ctx context.Context) {
	s.sweepAll(ctx, "sessions", 1000, s.rt.store.SweepSessions)
	s.sweepAll(ctx, "leases", 1000, s.rt.store.SweepLeases)
	s.sweepAll(ctx, "nonces", 10000, s.rt.store.SweepNonces)
	s.sweepAll(ctx, "counters", 10000, s.db.SweepCounters)
}

// sweepAll runs sweep in batches of batch until one comes back short or
// fails, so no sweep is one long write transaction.
func (s *Server) sweepAll(ctx context.Context, what string, batch int, sweep func(context.Context, int) (int, error)) {
	for {
		n, err := sweep(ctx, batch)
		if err != nil {
			s.logger.Error("sweep "+what, "err", err)
		}
		if err != nil || n < batch {
			return
		}
	}
}

// runtimeFunc is a runtime handler; c names the application environment
// from the request headers.
type runtimeFunc func(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error

// runtime wraps the runtime handler of endpoint: rate limits per client IP
// (stricter for authentication calls), the write admission for an endpoint
// that writes, the audit actor, the monthly request count and the call's
// outcome in the metrics.
func (s *Server) runtime(endpoint string, auth, writes bool, fn runtimeFunc) http.Handler {
	return s.signAnswers(s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		ip := clientIP(r)
		if s.rt.ipLimit != nil {
			key := addrKey(ip)
			if err := s.rt.ipLimit.take(w, key, requestLimitMsg); err != nil {
				return err
			}
			if auth {
				if err := s.rt.auLimit.take(w, key, requestLimitMsg); err != nil {
					return err
				}
			}
		}
		c := runtimeClient(r)
		ctx := r.Context()
		if writes {
			actx, release, err := s.rt.writes.admit(ctx)
			if err != nil {
				s.metrics.runtime.WithLabelValues(endpoint, store.ErrorCode(err)).Inc()
				return err
			}
			defer release()
			ctx = actx
		}
		ctx = store.WithActor(ctx, store.Actor{Type: store.ActorSystem, IP: ip, UserAgent: r.UserAgent()})
		outcome := "ok"
		ctx = context.WithValue(ctx, outcomeKey{}, &outcome)
		// Counting (and the quota check) happens before the call so that
		// calls 1 to the quota are served and the next refused; a call
		// whose application the store then refuses is uncounted.
		counted, err := s.rt.usage.admit(ctx, c)
		if err == nil {
			err = checkSignRequest(r)
		}
		if err == nil {
			err = fn(w, r.WithContext(ctx), c)
		}
		code := store.ErrorCode(err)
		if r.Method == http.MethodPost && badBody(code) {
			// The credential comes before the body: a client without a
			// valid one learns that first. Asked only on this error path,
			// so the hot endpoints pay nothing for it.
			if _, rerr := s.rt.store.ResolveApp(ctx, c); store.ErrorCode(rerr) == store.ECodeInvalidApp {
				err, code = rerr, store.ECodeInvalidApp
			}
		}
		if code == store.ECodeInvalidApp {
			s.rt.usage.release(counted)
			s.rt.usage.forget(c)
		}
		if err != nil {
			outcome = code
		}
		s.metrics.runtime.WithLabelValues(endpoint, outcome).Inc()
		return err
	}))
}

// badBody reports the codes of a body refused before the store acted on it
// (the GET endpoints take no body: their validation_failed is a query's).
func badBody(code string) bool {
	return code == store.ECodeInvalidJSON || code == store.ECodeValidation || code == store.ECodeBodyTooLarge
}

// runtimeClient reads the application identification headers: x-api-key
// with a public key, or x-application-id with x-environment.
func runtimeClient(r *http.Request) store.RuntimeClient {
	if k := strings.TrimSpace(r.Header.Get("x-api-key")); k != "" {
		if !strings.HasPrefix(k, store.PrefixPublicLive) && !strings.HasPrefix(k, store.PrefixPublicTest) {
			k = "invalid"
		}
		return store.RuntimeClient{PublicKey: k}
	}
	return store.RuntimeClient{AppID: strings.TrimSpace(r.Header.Get("x-application-id")), Env: strings.TrimSpace(r.Header.Get("x-environment"))}
}

// activeApp resolves c and refuses a disabled application.
func (s *Server) activeApp(ctx context.Context, c store.RuntimeClient) (*store.RuntimeApp, error) {
	ra, err := s.rt.store.ResolveApp(ctx, c)
	if err != nil {
		return nil, err
	}
	noteEnv(ctx, ra.Env)
	if ra.App.Status != store.AppActive {
		return nil, store.Errorf(store.ECodeAppDisabled, "the application is disabled")
	}
	return ra, nil
}

func (s *Server) rtInit(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	ra, err := s.activeApp(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.RuntimeApplication{ApplicationID: ra.App.ID, Name: ra.App.Name, Environment: ra.Env.Name})
	return nil
}

// rtJWKS serves the public key of one environment of the application
// (docs/design.md §5): the one ?environment= names, else the one the request's
// runtime credential names (x-api-key, or x-environment), else production.
// One environment per document, so that a production build's offline check
// refuses a development token.
func (s *Server) rtJWKS(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	ra, err := s.rt.store.ResolveApp(r.Context(), store.RuntimeClient{AppID: mux.Vars(r)["id"]})
	if err != nil {
		if store.ErrorCode(err) == store.ECodeInvalidApp {
			return store.NotFound("application")
		}
		return err
	}
	name, err := s.jwksEnvironment(r, c, ra.App)
	if err != nil {
		return err
	}
	env := ra.App.Env(name)
	noteEnv(r.Context(), env)
	// Public keys are public: served for a disabled application too, so
	// that clients can still verify what they hold.
	h := w.Header()
	h.Set("Content-Type", "application/jwk-set+json")
	h.Set("Cache-Control", "public, max-age=300")
	// The headers pick the document, and a signed one answers one nonce:
	// a shared cache must keep them apart.
	h.Set("Vary", "x-api-key, x-environment, accept-signature")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(rttoken.Document(env))
	return err
}

// jwksEnvironment names the environment whose key set a JWKS request wants.
// Returns validation_failed for an environment that is neither production
// nor development, invalid_application for a public key that is unknown or
// belongs to another application.
func (s *Server) jwksEnvironment(r *http.Request, c store.RuntimeClient, app *store.Application) (string, error) {
	if q := r.URL.Query(); q.Has("environment") {
		name := q.Get("environment")
		if !store.ValidEnv(name) {
			return "", store.Invalid("environment", "environment must be production or development")
		}
		return name, nil
	}
	if c.PublicKey != "" {
		ra, err := s.rt.store.ResolveApp(r.Context(), c)
		if err != nil {
			return "", err
		}
		if ra.App.ID != app.ID {
			return "", store.Errorf(store.ECodeInvalidApp, "the public key belongs to another application")
		}
		return ra.Env.Name, nil
	}
	if c.Env == "" {
		return store.EnvProduction, nil
	}
	if !store.ValidEnv(c.Env) {
		return "", store.Invalid("x-environment", "x-environment must be production or development")
	}
	return c.Env, nil
}

func (s *Server) rtRegister(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.RuntimeRegisterRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	ra, err := s.activeApp(r.Context(), c)
	if err != nil {
		return err
	}
	u, err := s.db.RegisterEndUser(r.Context(), store.Scope{OrgID: ra.App.OrgID, AppID: ra.App.ID, Env: ra.Env.Name}, in.Email, in.Password)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.Registered{UserID: u.ID})
	return nil
}

func newSessionBody(s *store.RuntimeSession) api.RuntimeSession {
	return api.RuntimeSession{AccessToken: s.AccessToken, RefreshToken: s.RefreshToken, AccessExpiresAt: s.AccessExpiresAt.UTC(), RefreshExpiresAt: s.RefreshExpiresAt.UTC()}
}

// replayOf checks the anti-replay fields of a body.
func replayOf(f api.Replay) (store.Replay, error) {
	if strings.TrimSpace(f.Timestamp) == "" {
		return store.Replay{}, store.Invalid("timestamp", "timestamp is required")
	}
	ts, err := time.Parse(time.RFC3339Nano, f.Timestamp)
	if err != nil {
		return store.Replay{}, store.Invalid("timestamp", "timestamp must be an RFC 3339 date-time")
	}
	return store.Replay{Timestamp: ts.UTC(), Nonce: f.Nonce}, nil
}

func (s *Server) rtLogin(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.RuntimeLoginRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	rp, err := replayOf(in.Replay)
	if err != nil {
		return err
	}
	ra, err := s.rt.store.ResolveApp(r.Context(), c)
	if err != nil {
		return err
	}
	var sess *store.RuntimeSession
	err = s.runtimeLogin(r, ra.Env.ID, in.Email, in.Altcha, func() (err error) {
		sess, err = s.rt.store.Login(r.Context(), c, store.RuntimeLoginInput{Email: in.Email, Password: in.Password, Fingerprint: in.Fingerprint,
			Components: api.StoreComponents(in.Components), Replay: rp})
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newSessionBody(sess))
	return nil
}

// runtimeLogin runs check, the password check of an end-user of the
// environment envID, under the runtime's login throttle (docs/design.md §7):
// the attempt is counted before the password is judged, refused past the
// limits, given back when check judged no password (a replay, a busy
// hasher, bad input) and cleared by a success. The runtime login and the
// portal's sign-in share it, so one account has one count.
func (s *Server) runtimeLogin(r *http.Request, envID, email, altcha string, check func() error) error {
	// The account is the application environment and the e-mail, however
	// the request named the application (public key or id, any letter
	// case), so that no spelling starts a fresh count.
	account, ip := envID+"|"+strings.ToLower(strings.TrimSpace(email)), clientKey(r)
	if err := s.rt.logins.attempt(r.Context(), account, ip, altcha); err != nil {
		return err
	}
	if err := check(); err != nil {
		if store.ErrorCode(err) != store.ECodeInvalidCreds {
			s.rt.logins.notJudged(r.Context(), account, ip)
		}
		return err
	}
	s.rt.logins.succeeded(r.Context(), account, ip)
	return nil
}

func (s *Server) rtLogout(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.AccessToken
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	if err := s.rt.store.Logout(r.Context(), c, in.AccessToken); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

func (s *Server) rtActivate(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.ActivateRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	rp, err := replayOf(in.Replay)
	if err != nil {
		return err
	}
	userToken := ""
	if h := r.Header.Get("Authorization"); h != "" {
		v, ok := cutBearer(h)
		if !ok || v == "" {
			return store.Errorf(store.ECodeInvalidToken, "Authorization must be Bearer <end-user access token>")
		}
		userToken = v
	}
	a, err := s.rt.store.Activate(r.Context(), c, store.ActivateInput{LicenseKey: in.LicenseKey, Fingerprint: in.Fingerprint, UserToken: userToken,
		Components: api.StoreComponents(in.Components), Replay: rp})
	if err != nil {
		return err
	}
	var exp *time.Time
	if a.LicenseExpiresAt != nil {
		t := a.LicenseExpiresAt.UTC()
		exp = &t
	}
	writeJSON(w, http.StatusOK, api.Activated{RuntimeSession: newSessionBody(&a.RuntimeSession), Entitlements: a.Entitlements, License: api.ActivatedLicense{Status: a.LicenseStatus, ExpiresAt: exp}})
	return nil
}

func (s *Server) rtValidate(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	tok, err := decodeToken(r)
	if err != nil {
		return err
	}
	v, err := s.rt.store.Validate(r.Context(), c, tok)
	if err != nil {
		return err
	}
	setOutcome(r, validationOutcome(v))
	writeValidation(w, v)
	return nil
}

func (s *Server) rtRefresh(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.RefreshRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	sess, err := s.rt.store.Refresh(r.Context(), c, in.RefreshToken)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newSessionBody(sess))
	return nil
}

func (s *Server) rtReset(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.RuntimeDeviceResetRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	n, err := s.rt.store.ResetDevice(r.Context(), c, store.DeviceResetInput{LicenseKey: in.LicenseKey, Fingerprint: in.Fingerprint, DeviceID: in.DeviceID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.DeviceReset{Success: true, Remaining: n})
	return nil
}

// rtLicenseDevices lists a license's devices for its customer
// (docs/design.md §17), under the per-license limit: a key that is not one
// is the store's to refuse and counts against nothing.
func (s *Server) rtLicenseDevices(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.LicenseDevicesRequest
	if err := decodeRuntime(r, &in); err != nil {
		return err
	}
	rp, err := replayOf(in.Replay)
	if err != nil {
		return err
	}
	if _, kerr := store.CheckLicenseKey("license_key", in.LicenseKey); kerr == nil && s.rt.dvLimit != nil {
		if err := s.rt.dvLimit.take(w, store.NormalizeLicenseKey(in.LicenseKey), "too many devices lists of this license; retry after the window resets"); err != nil {
			return err
		}
	}
	list, err := s.rt.store.LicenseDevices(r.Context(), c, store.LicenseDevicesInput{LicenseKey: in.LicenseKey, Fingerprint: in.Fingerprint, Replay: rp})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LicenseDevices{Data: mapList(list, func(d store.SelfServiceDevice) api.SelfServiceDevice {
		return api.SelfServiceDevice{ID: d.ID, Name: d.Name, Platform: d.Platform, LastSeenAt: d.LastSeenAt, BoundAt: d.BoundAt, Current: d.Current}
	})})
	return nil
}

func (s *Server) rtCheck(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	key := r.URL.Query().Get("key")
	if key == "" {
		return store.Invalid("key", "key is required")
	}
	tok, ok := cutBearer(r.Header.Get("Authorization"))
	if !ok || tok == "" {
		return store.Errorf(store.ECodeSessionInvalid, "send the access token as Authorization: Bearer")
	}
	v, err := s.rt.store.Validate(r.Context(), c, tok)
	if err != nil {
		return err
	}
	if !v.Valid {
		if v.Reason == store.ReasonAppDisabled {
			return store.Errorf(store.ECodeAppDisabled, "the application is disabled")
		}
		if v.Reason == store.ReasonLeaseRequired {
			// The session is good; only the seat is missing (docs/design.md §13).
			writeValidation(w, v)
			return nil
		}
		return store.Errorf(store.ECodeSessionInvalid, "the session is not valid: %s", v.Reason)
	}
	granted := false
	for _, k := range v.Entitlements {
		if k == key {
			granted = true
			break
		}
	}
	writeGranted(w, granted)
	return nil
}

// cutBearer returns the value of a Bearer Authorization header.
func cutBearer(h string) (string, bool) {
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:]), true
	}
	return "", false
}

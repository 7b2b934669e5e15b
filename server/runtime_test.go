package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"licensectl/server/api"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/rttoken"
	"licensectl/server/servertest"
	"licensectl/store"
)

// rtFix is an application with its production public key, ready for runtime
// calls; plans, licenses and statuses go through the management API.
type rtFix struct {
	s      *servertest.Server
	org    *servertest.Org
	appID  string
	pub    string // production public key
	devPub string // development public key
	scope  store.Scope
	ids    map[string]string // license key → id
}

func newRT(t *testing.T, mods ...func(*config.Config)) *rtFix {
	t.Helper()
	s := servertest.New(t, mods...)
	return attachRT(t, s)
}

func attachRT(t *testing.T, s *servertest.Server) *rtFix {
	t.Helper()
	org := s.NewOrg(t)
	id := newApp(t, s, org.APIKey, "Runtime App")
	f := &rtFix{s: s, org: org, appID: id, scope: store.Scope{OrgID: org.ID, AppID: id, Env: store.EnvProduction}, ids: map[string]string{}}
	var d struct {
		Environments []struct {
			Name      string `json:"name"`
			PublicKey string `json:"public_key"`
		} `json:"environments"`
	}
	s.As(t, org.APIKey, "GET", "/v1/mgmt/applications/"+id, nil).Want(t, http.StatusOK).JSON(t, &d)
	for _, e := range d.Environments {
		if e.Name == store.EnvProduction {
			f.pub = e.PublicKey
		} else {
			f.devPub = e.PublicKey
		}
	}
	return f
}

// do sends a runtime request with the production public key.
func (f *rtFix) do(t *testing.T, method, path string, body any, hdr ...string) *servertest.Resp {
	t.Helper()
	return f.s.Do(t, method, "/v1/runtime"+path, body, append([]string{"x-api-key", f.pub}, hdr...)...)
}

// planOpts adjust a plan made for a test.
type planOpts struct {
	maxDevices, resets int
	trial              bool
	durationDays       *int
	ents               []string // entitlement keys of the plan
	extra              []string // entitlement keys added to each license
	expiresAt          *time.Time
	plan               map[string]any // more plan fields
}

// mgmt sends a management request with the organization's API key.
func (f *rtFix) mgmt(t *testing.T, method, path string, body any) *servertest.Resp {
	t.Helper()
	return f.s.As(t, f.org.APIKey, method, "/v1/mgmt/applications/"+f.appID+path, body)
}

// licenses makes entitlements, a plan and n licenses of it through the
// management API and returns their keys.
func (f *rtFix) licenses(t *testing.T, n int, o planOpts) []string {
	t.Helper()
	ent := func(k string) string {
		var out struct {
			ID string `json:"entitlement_id"`
		}
		f.mgmt(t, "POST", "/entitlements", map[string]any{"key": k, "name": k}).Want(t, http.StatusCreated).JSON(t, &out)
		return out.ID
	}
	planEnts, extra := []string{}, []string{}
	for _, k := range o.ents {
		planEnts = append(planEnts, ent(k))
	}
	for _, k := range o.extra {
		extra = append(extra, ent(k))
	}
	if o.maxDevices == 0 {
		o.maxDevices = 1
	}
	var plan struct {
		ID string `json:"plan_id"`
	}
	body := map[string]any{"name": "Plan", "is_trial": o.trial, "duration_days": o.durationDays, "max_devices": o.maxDevices,
		"device_reset_limit": o.resets, "entitlement_ids": planEnts}
	maps.Copy(body, o.plan)
	f.mgmt(t, "POST", "/plans", body).Want(t, http.StatusCreated).JSON(t, &plan)
	req := map[string]any{"plan_id": plan.ID, "quantity": n, "entitlement_ids": extra}
	if o.expiresAt != nil {
		req["expires_at"] = o.expiresAt.Format(time.RFC3339Nano)
	}
	var gen api.LicensesGenerated
	f.mgmt(t, "POST", "/licenses", req).Want(t, http.StatusCreated).JSON(t, &gen)
	var keys []string
	for _, l := range gen.Licenses {
		keys = append(keys, l.Key)
		f.ids[l.Key] = l.ID
	}
	return keys
}

func (f *rtFix) license(t *testing.T, o planOpts) string { t.Helper(); return f.licenses(t, 1, o)[0] }

// lic reads a license's detail through the management API.
func (f *rtFix) lic(t *testing.T, key string) api.LicenseDetail {
	t.Helper()
	var d api.LicenseDetail
	f.mgmt(t, "GET", "/licenses/"+f.ids[key], nil).Want(t, http.StatusOK).JSON(t, &d)
	return d
}

// setStatus changes the status of a license, user or device (path
// "licenses", "users", "devices") through the management API.
func (f *rtFix) setStatus(t *testing.T, path, id, status string) {
	t.Helper()
	f.mgmt(t, "PATCH", "/"+path+"/"+id, map[string]any{"status": status}).Want(t, http.StatusOK)
}

// rtDevice is a device as the management API lists it.
type rtDevice struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	UserID      *string    `json:"user_id"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
}

// device finds a device by fingerprint through the management API.
func (f *rtFix) device(t *testing.T, fp string) rtDevice {
	t.Helper()
	for page := 1; ; page++ {
		var p struct {
			Data []rtDevice `json:"data"`
		}
		f.mgmt(t, "GET", "/devices?per_page=100&page="+strconv.Itoa(page), nil).Want(t, http.StatusOK).JSON(t, &p)
		for _, d := range p.Data {
			if d.Fingerprint == fp {
				return d
			}
		}
		if len(p.Data) < 100 {
			t.Fatalf("no device %q", fp)
		}
	}
}

// wantAudit fails unless the environment's audit log holds at least min
// entries of event.
func (f *rtFix) wantAudit(t *testing.T, event string, min int) {
	t.Helper()
	var page struct {
		Total int `json:"total"`
	}
	f.mgmt(t, "GET", "/audit-logs?event="+event, nil).Want(t, http.StatusOK).JSON(t, &page)
	if page.Total < min {
		t.Fatalf("%s entries = %d, want at least %d", event, page.Total, min)
	}
}

func nonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// replay returns fresh anti-replay fields at the server's clock.
func (f *rtFix) replay() (string, string) {
	return f.s.Clock().Now().Format(time.RFC3339Nano), nonce()
}

func (f *rtFix) activateBody(key, fp string) map[string]any {
	ts, n := f.replay()
	return map[string]any{"license_key": key, "device_fingerprint": fp, "timestamp": ts, "nonce": n}
}

// session is a runtime session body.
type session struct {
	AccessToken  string   `json:"access_token"`
	RefreshToken string   `json:"refresh_token"`
	Entitlements []string `json:"entitlements"`
	License      struct {
		Status    string  `json:"status"`
		ExpiresAt *string `json:"expires_at"`
	} `json:"license"`
}

func (f *rtFix) activate(t *testing.T, key, fp string, hdr ...string) session {
	t.Helper()
	var out session
	f.do(t, "POST", "/licenses/activate", f.activateBody(key, fp), hdr...).Want(t, http.StatusOK).JSON(t, &out)
	return out
}

func (f *rtFix) validate(t *testing.T, tok string) map[string]any {
	t.Helper()
	return f.do(t, "POST", "/sessions/validate", map[string]any{"access_token": tok}).Want(t, http.StatusOK).Map(t)
}

// wantReason fails unless validating tok answers {valid:false, reason}.
func (f *rtFix) wantReason(t *testing.T, tok, reason string) {
	t.Helper()
	v := f.validate(t, tok)
	servertest.WantKeys(t, v, "valid", "reason")
	if v["valid"] != false || v["reason"] != reason {
		t.Fatalf("validate = %v, want reason %s", v, reason)
	}
}

func (f *rtFix) wantValid(t *testing.T, tok string) []string {
	t.Helper()
	v := f.validate(t, tok)
	servertest.WantKeys(t, v, "valid", "entitlements", "expires_at")
	if v["valid"] != true {
		t.Fatalf("validate = %v, want valid", v)
	}
	servertest.WantTime(t, "expires_at", v["expires_at"])
	var out []string
	for _, e := range v["entitlements"].([]any) {
		out = append(out, e.(string))
	}
	return out
}

func (f *rtFix) register(t *testing.T, email string) string {
	t.Helper()
	r := f.do(t, "POST", "/auth/register", map[string]any{"email": email, "password": servertest.Password}).Want(t, http.StatusCreated).Map(t)
	servertest.WantKeys(t, r, "user_id")
	return r["user_id"].(string)
}

func (f *rtFix) loginBody(email, pw, fp string) map[string]any {
	ts, n := f.replay()
	return map[string]any{"email": email, "password": pw, "device_fingerprint": fp, "timestamp": ts, "nonce": n}
}

func (f *rtFix) login(t *testing.T, email, fp string) session {
	t.Helper()
	var out session
	r := f.do(t, "POST", "/auth/login", f.loginBody(email, servertest.Password, fp)).Want(t, http.StatusOK)
	servertest.WantKeys(t, r.Map(t), "access_token", "refresh_token", "access_expires_at", "refresh_expires_at")
	r.JSON(t, &out)
	return out
}

func TestRuntimeInit(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	t.Run("OK", func(t *testing.T) {
		m := f.do(t, "POST", "/applications/init", nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "application_id", "name", "environment")
		if m["application_id"] != f.appID || m["environment"] != "production" || m["name"] != "Runtime App" {
			t.Fatalf("init = %v", m)
		}
		m = f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-api-key", f.devPub).Want(t, http.StatusOK).Map(t)
		if m["environment"] != "development" {
			t.Fatalf("init with the development key = %v", m)
		}
		m = f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-application-id", f.appID, "x-environment", "development").Want(t, http.StatusOK).Map(t)
		if m["environment"] != "development" {
			t.Fatalf("init by id = %v", m)
		}
		m = f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-application-id", f.appID).Want(t, http.StatusOK).Map(t)
		if m["environment"] != "production" {
			t.Fatalf("init by id without environment = %v", m)
		}
	})
	t.Run("ErrInvalidApplication", func(t *testing.T) {
		f.s.Do(t, "POST", "/v1/runtime/applications/init", nil).WantError(t, http.StatusUnauthorized, "invalid_application")
		f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-api-key", "app_pub_live_nope").WantError(t, http.StatusUnauthorized, "invalid_application")
		f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-application-id", "0190c0de-0000-7000-8000-000000000000").WantError(t, http.StatusUnauthorized, "invalid_application")
		f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-application-id", "garbage").WantError(t, http.StatusUnauthorized, "invalid_application")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f.s.Do(t, "POST", "/v1/runtime/applications/init", nil, "x-application-id", f.appID, "x-environment", "staging").WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrApplicationDisabled", func(t *testing.T) {
		g := newRT(t)
		g.s.As(t, g.org.APIKey, "DELETE", "/v1/mgmt/applications/"+g.appID, nil).Want(t, http.StatusOK)
		g.do(t, "POST", "/applications/init", nil).WantError(t, http.StatusForbidden, "application_disabled")
	})
	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		f.do(t, "GET", "/applications/init", nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
	})
}

func TestRuntimeJWKS(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	var ks rttoken.JWKS
	r := f.s.Do(t, "GET", "/v1/runtime/applications/"+f.appID+"/jwks.json", nil).Want(t, http.StatusOK)
	r.JSON(t, &ks)
	if len(ks.Keys) != 1 {
		t.Fatalf("keys = %+v, want the production key alone", ks.Keys)
	}
	for _, k := range ks.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Alg != "EdDSA" || k.Kid == "" || len(k.X) != 43 {
			t.Fatalf("key = %+v", k)
		}
	}
	t.Run("TokenVerifies", func(t *testing.T) {
		key := f.license(t, planOpts{ents: []string{"pro"}})
		sess := f.activate(t, key, "fp-jwks")
		app, err := f.s.Store().FindApplication(context.Background(), f.scope.App())
		if err != nil {
			t.Fatal(err)
		}
		c, err := rttoken.Verify(sess.AccessToken, app, f.s.Config.Runtime.Issuer)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		kidOK := false
		for _, k := range ks.Keys {
			kidOK = kidOK || k.Kid == app.Env("production").KeyID
		}
		if !kidOK || c.Env != "production" || c.LicenseID == "" || c.DeviceID == "" || c.SessionID == "" || c.Subject != c.LicenseID ||
			len(c.Entitlements) != 1 || c.Entitlements[0] != "pro" || c.Roles == nil || c.IssuedAt == nil {
			t.Fatalf("claims = %+v", c)
		}
		parts := strings.Split(sess.AccessToken, ".")
		if len(parts) != 3 {
			t.Fatalf("token = %s", sess.AccessToken)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.s.Do(t, "GET", "/v1/runtime/applications/0190c0de-0000-7000-8000-000000000000/jwks.json", nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.Do(t, "GET", "/v1/runtime/applications/nope/jwks.json", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

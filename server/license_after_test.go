package server_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
	"licensectl/server/api"
	"licensectl/server/rttoken"
)

// TestLicenseAfterSaleEvents: renew, PATCH expires_at, plan_id and user_id
// over HTTP, each answer validated against the document, and their events
// delivered to a real receiver with Standard Webhooks signatures, the
// license in its list-item shape beside the before/after pairs.
func TestLicenseAfterSaleEvents(t *testing.T) {
	f := newRT(t, local)
	rc := newReceiver(t)
	register(t, f, rc, "license.renewed", "license.updated", "license.plan_changed", "license.transferred")
	days := 30
	key := f.license(t, planOpts{maxDevices: 2, durationDays: &days, plan: map[string]any{"maintenance_days": 365}})
	id := f.ids[key]
	f.activate(t, key, "after-fp")
	before := f.lic(t, key)
	if before.ExpiresAt == nil || before.MaintenanceExpiresAt == nil || !before.MaintenanceExpiresAt.Equal(before.ActivatedAt.Add(365*24*time.Hour)) {
		t.Fatalf("after activation: expires_at %v, maintenance_expires_at %v", before.ExpiresAt, before.MaintenanceExpiresAt)
	}

	// The machine file's license carries the end of updates.
	var mf api.LicenseMachineFileIssued
	f.mgmt(t, "POST", "/licenses/"+id+"/machine-files", map[string]any{"fingerprint": "after-fp"}).Want(t, http.StatusOK).JSON(t, &mf)
	p, err := machinefile.Verify(mf.Certificate, f.pinned(t, ""), key, "after-fp", f.s.Clock().Now())
	if err != nil || p.License.MaintenanceExpiresAt == nil || !p.License.MaintenanceExpiresAt.Equal(*before.MaintenanceExpiresAt) {
		t.Fatalf("machine file license = %+v, %v; want maintenance_expires_at %v", p, err, before.MaintenanceExpiresAt)
	}

	r := f.mgmt(t, "POST", "/licenses/"+id+"/renew", map[string]any{"days": 10}).Want(t, http.StatusOK).Map(t)
	want := before.ExpiresAt.Add(10 * 24 * time.Hour).UTC().Format(time.RFC3339Nano)
	if r["expires_at"] != want || r["id"] != id || r["devices"] == nil {
		t.Fatalf("renew answered %v; want the detail expiring at %s", r, want)
	}
	d := rc.next(t, "license.renewed")
	if l, _ := d.Data["license"].(map[string]any); l["expires_at"] != want || d.Data["expires_at"] != want ||
		d.Data["previous_expires_at"] != before.ExpiresAt.UTC().Format(time.RFC3339Nano) {
		t.Fatalf("license.renewed data = %v", d.Data)
	}

	f.mgmt(t, "POST", "/licenses/"+id+"/renew", nil).Want(t, http.StatusOK)
	rc.next(t, "license.renewed")

	var plan struct {
		PlanID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Solo", "max_devices": 1}).Want(t, http.StatusCreated).JSON(t, &plan)
	r = f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"plan_id": plan.PlanID}).Want(t, http.StatusOK).Map(t)
	if r["id"] != id || r["status"] != "active" {
		t.Fatalf("PATCH plan_id answered %v", r)
	}
	d = rc.next(t, "license.plan_changed")
	if p, _ := d.Data["plan"].(map[string]any); p["id"] != plan.PlanID || p["name"] != "Solo" || d.Data["previous_plan"] == nil {
		t.Fatalf("license.plan_changed data = %v", d.Data)
	}

	buyer := f.register(t, "buyer@after.test")
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"user_id": buyer}).Want(t, http.StatusOK)
	d = rc.next(t, "license.transferred")
	if u, _ := d.Data["user"].(map[string]any); u["id"] != buyer || u["email"] != "buyer@after.test" {
		t.Fatalf("license.transferred data = %v", d.Data)
	}

	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"user_id": nil}).Want(t, http.StatusOK)
	d = rc.next(t, "license.transferred")
	if d.Data["user"] != nil {
		t.Fatalf("unassigned: data = %v", d.Data)
	}
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"expires_at": nil}).Want(t, http.StatusOK)
	d = rc.next(t, "license.updated")
	if d.Data["expires_at"] != nil || d.Data["previous_expires_at"] == nil {
		t.Fatalf("license.updated data = %v", d.Data)
	}
	if l := f.lic(t, key); l.ExpiresAt != nil || l.User != nil {
		t.Fatalf("after PATCH: %+v", l)
	}
}

// TestLicenseAfterSaleErrors: each refusal in the documented shape, with
// its status, changing nothing.
func TestLicenseAfterSaleErrors(t *testing.T) {
	f := newRT(t, local)
	key := f.license(t, planOpts{maxDevices: 2})
	id := f.ids[key]
	f.activate(t, key, "err-fp-1")
	f.activate(t, key, "err-fp-2")
	var solo struct {
		PlanID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Solo", "max_devices": 1}).Want(t, http.StatusCreated).JSON(t, &solo)
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"plan_id": solo.PlanID}).WantError(t, http.StatusConflict, "too_many_devices")
	f.mgmt(t, "POST", "/licenses/"+id+"/renew", map[string]any{"days": 5}).WantError(t, http.StatusConflict, "invalid_transition")
	f.mgmt(t, "POST", "/licenses/"+id+"/renew", nil).WantError(t, http.StatusBadRequest, "validation_failed")
	f.mgmt(t, "POST", "/licenses/"+id+"/renew", map[string]any{"days": 0}).WantError(t, http.StatusBadRequest, "validation_failed")
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{}).WantError(t, http.StatusBadRequest, "validation_failed")
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"expires_at": "tomorrow"}).WantError(t, http.StatusBadRequest, "validation_failed")
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"colour": "red"}).WantError(t, http.StatusBadRequest, "validation_failed")
	f.mgmt(t, "PATCH", "/licenses/"+id, map[string]any{"user_id": "00000000-0000-7000-8000-000000000000"}).WantError(t, http.StatusNotFound, "not_found")
	f.mgmt(t, "POST", "/licenses/renew", map[string]any{"license_ids": []string{id}, "days": 5}).WantError(t, http.StatusConflict, "invalid_transition")
	f.mgmt(t, "POST", "/licenses/renew", map[string]any{"license_ids": []string{}, "days": 5}).WantError(t, http.StatusBadRequest, "validation_failed")
	if l := f.lic(t, key); l.Plan.Name == "Solo" || l.ExpiresAt != nil || l.DevicesCount != 2 {
		t.Fatalf("refusals changed the license: %+v", l)
	}
}

// TestAccessTokenMaintenance: the access token's mnt claim is the unix
// second of the license's maintenance_expires_at on activation (alone and
// with a signed-in user) and on refresh; a renewal with maintenance_days
// moves it at the next refresh; an unlimited license, and a login session
// (no license), carry none.
func TestAccessTokenMaintenance(t *testing.T) {
	f := newRT(t)
	app, err := f.s.Store().FindApplication(context.Background(), f.scope.App())
	if err != nil {
		t.Fatal(err)
	}
	claims := func(t *testing.T, tok string) *rttoken.Claims {
		t.Helper()
		c, err := rttoken.Verify(tok, app, f.s.Config.Runtime.Issuer)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		return c
	}
	wantMnt := func(t *testing.T, what, tok string, want *time.Time) {
		t.Helper()
		c := claims(t, tok)
		switch {
		case want == nil && c.Maintenance != nil:
			t.Fatalf("%s: mnt = %v, want none", what, c.Maintenance.Time)
		case want != nil && (c.Maintenance == nil || c.Maintenance.Unix() != want.Unix()):
			t.Fatalf("%s: mnt = %v, want %v", what, c.Maintenance, want.Unix())
		}
		if want == nil && strings.Contains(payload(t, tok), `"mnt"`) {
			t.Fatalf("%s: payload %s names mnt", what, payload(t, tok))
		}
	}
	refresh := func(t *testing.T, s session) session {
		t.Helper()
		var out session
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s.RefreshToken}).Want(t, http.StatusOK).JSON(t, &out)
		return out
	}

	key := f.license(t, planOpts{maxDevices: 3, plan: map[string]any{"maintenance_days": 365}})
	s := f.activate(t, key, "mnt-fp")
	l := f.lic(t, key)
	if l.MaintenanceExpiresAt == nil {
		t.Fatalf("activated license has no maintenance_expires_at: %+v", l)
	}
	wantMnt(t, "activation", s.AccessToken, l.MaintenanceExpiresAt)
	s = refresh(t, s)
	wantMnt(t, "refresh", s.AccessToken, l.MaintenanceExpiresAt)

	f.mgmt(t, "POST", "/licenses/"+f.ids[key]+"/renew", map[string]any{"maintenance_days": 30}).Want(t, http.StatusOK)
	moved := l.MaintenanceExpiresAt.Add(30 * 24 * time.Hour)
	if got := f.lic(t, key).MaintenanceExpiresAt; got == nil || !got.Equal(moved) {
		t.Fatalf("after renew: maintenance_expires_at %v, want %v", got, moved)
	}
	s = refresh(t, s)
	wantMnt(t, "refresh after renewal", s.AccessToken, &moved)

	f.register(t, "mnt@after.test")
	u := f.login(t, "mnt@after.test", "mnt-user-fp")
	wantMnt(t, "login session", u.AccessToken, nil)
	u = refresh(t, u)
	wantMnt(t, "refreshed login session", u.AccessToken, nil)
	withUser := f.activate(t, key, "mnt-user-fp", "Authorization", "Bearer "+u.AccessToken)
	wantMnt(t, "activation by a signed-in user", withUser.AccessToken, &moved)

	unlimited := f.license(t, planOpts{maxDevices: 1})
	s = f.activate(t, unlimited, "unlimited-fp")
	wantMnt(t, "unlimited activation", s.AccessToken, nil)
	wantMnt(t, "unlimited refresh", refresh(t, s).AccessToken, nil)
}

// payload is the decoded JSON payload of a JWT.
func payload(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token = %s", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

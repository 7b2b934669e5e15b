package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
)

func TestEndUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var users []*store.EndUser
	for i := range 5 {
		f.s.Clock().Advance(1000)
		users = append(users, seedUser(t, f, "production", fmt.Sprintf("user%d@example.com", i)))
	}
	seedUser(t, f, "development", "dev@example.com")

	t.Run("OKList", func(t *testing.T) {
		p := getPage(t, f, "/users?per_page=2")
		if p.Total != 5 || len(p.Data) != 2 || p.Page != 1 || p.PerPage != 2 {
			t.Fatalf("page = %+v", p)
		}
		u := p.Data[0]
		servertest.WantKeys(t, u, "id", "email", "status", "roles", "last_login_at", "created_at", "updated_at")
		if u["id"] != users[4].ID || u["email"] != "user4@example.com" || u["status"] != "active" || u["last_login_at"] != nil || len(u["roles"].([]any)) != 0 {
			t.Fatalf("item = %v", u)
		}
		servertest.WantTime(t, "created_at", u["created_at"])
		servertest.WantTime(t, "updated_at", u["updated_at"])
		if p := getPage(t, f, "/users?page=3&per_page=2"); len(p.Data) != 1 || p.Total != 5 {
			t.Fatalf("last page = %+v", p)
		}
		if p := getPage(t, f, "/users?page=9"); len(p.Data) != 0 || p.Total != 5 {
			t.Fatalf("page past the end = %+v", p)
		}
		if p := getPage(t, f, "/users", "x-environment", "development"); p.Total != 1 || p.Data[0]["email"] != "dev@example.com" {
			t.Fatalf("development = %+v", p)
		}
	})

	t.Run("OKStatus", func(t *testing.T) {
		dev := seedDevice(t, f, "production", "fp-user")
		lic := generate(t, f, map[string]any{"plan_id": f.newPlan(t, map[string]any{"name": "U"})})[0]["id"].(string)
		for _, c := range []struct {
			status string
			revoke bool
		}{{"banned", true}, {"active", false}, {"disabled", true}, {"disabled", false}, {"active", false}} {
			sid, err := f.s.Store().SeedBinding(ctx, f.scope("production"), lic, dev.ID, users[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			m := f.do(t, "PATCH", "/users/"+users[0].ID, map[string]any{"status": c.status}).Want(t, http.StatusOK).Map(t)
			servertest.WantKeys(t, m, "id", "status")
			if m["id"] != users[0].ID || m["status"] != c.status {
				t.Fatalf("PATCH %s = %v", c.status, m)
			}
			reason, _ := f.s.Store().SessionRevokeReason(ctx, sid)
			if (reason != "") != c.revoke {
				t.Fatalf("%s: session revoke reason %q, want revoked %v", c.status, reason, c.revoke)
			}
		}
		f.do(t, "PATCH", "/users/"+users[1].ID, map[string]any{"status": "banned"}).Want(t, http.StatusOK)
		if p := getPage(t, f, "/users?status=banned"); p.Total != 1 || p.Data[0]["id"] != users[1].ID || p.Data[0]["status"] != "banned" {
			t.Fatalf("banned filter = %+v", p)
		}
		if p := getPage(t, f, "/users?status=active"); p.Total != 4 {
			t.Fatalf("active total = %d", p.Total)
		}
		if p := getPage(t, f, "/users?status=disabled"); p.Total != 0 || len(p.Data) != 0 {
			t.Fatalf("disabled = %+v", p)
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, body := range []any{map[string]any{"status": "blocked"}, map[string]any{}, map[string]any{"status": true}} {
			f.do(t, "PATCH", "/users/"+users[2].ID, body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
		for _, q := range []string{"status=blocked", "per_page=0", "per_page=101", "per_page=x", "page=0"} {
			f.do(t, "GET", "/users?"+q, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{missingID, "nope"} {
			f.do(t, "PATCH", "/users/"+id, map[string]any{"status": "banned"}).WantError(t, http.StatusNotFound, "not_found")
		}
		f.do(t, "PATCH", "/users/"+users[2].ID, map[string]any{"status": "banned"}, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
		theirs := f.s.NewOrg(t)
		f.s.As(t, theirs.APIKey, "PATCH", "/v1/mgmt/applications/"+f.app+"/users/"+users[2].ID, map[string]any{"status": "banned"}).WantError(t, http.StatusNotFound, "not_found")
		// Their user, through my application's path.
		theirApp := newApp(t, f.s, theirs.APIKey, "Theirs")
		theirUser, err := f.s.Store().RegisterEndUser(context.Background(), store.Scope{OrgID: theirs.ID, AppID: theirApp, Env: "production"}, "their@example.com", "a long enough password 1")
		if err != nil {
			t.Fatal(err)
		}
		f.do(t, "PATCH", "/users/"+theirUser.ID, map[string]any{"status": "banned"}).WantError(t, http.StatusNotFound, "not_found")
		theirDev, err := f.s.Store().EnsureDevice(context.Background(), store.Scope{OrgID: theirs.ID, AppID: theirApp, Env: "production"}, "their-fp")
		if err != nil {
			t.Fatal(err)
		}
		f.do(t, "PATCH", "/devices/"+theirDev.ID, map[string]any{"status": "blocked"}).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, theirs.APIKey, "GET", "/v1/mgmt/applications/"+f.app+"/users", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

func TestDevices(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var devs []*store.Device
	for i := range 3 {
		f.s.Clock().Advance(1000)
		devs = append(devs, seedDevice(t, f, "production", fmt.Sprintf("fp-%d", i)))
	}
	user := seedUser(t, f, "production", "owner@example.com")
	lic := generate(t, f, map[string]any{"plan_id": f.newPlan(t, map[string]any{"name": "D"})})[0]["id"].(string)

	t.Run("OKList", func(t *testing.T) {
		if _, err := f.s.Store().SeedBinding(ctx, f.scope("production"), lic, devs[0].ID, user.ID); err != nil {
			t.Fatal(err)
		}
		p := getPage(t, f, "/devices")
		if p.Total != 3 || len(p.Data) != 3 {
			t.Fatalf("page = %+v", p)
		}
		for _, d := range p.Data {
			servertest.WantKeys(t, d, "id", "fingerprint", "name", "platform", "status", "user_id", "license_ids", "last_seen_at", "created_at")
		}
		newest, bound := p.Data[0], p.Data[2]
		if newest["id"] != devs[2].ID || newest["fingerprint"] != "fp-2" || newest["status"] != "active" || newest["user_id"] != nil || len(newest["license_ids"].([]any)) != 0 || newest["last_seen_at"] != nil {
			t.Fatalf("newest = %v", newest)
		}
		if bound["user_id"] != user.ID || fmt.Sprint(bound["license_ids"]) != "["+lic+"]" {
			t.Fatalf("bound = %v", bound)
		}
		servertest.WantTime(t, "created_at", newest["created_at"])
		if p := getPage(t, f, "/devices?page=2&per_page=2"); len(p.Data) != 1 || p.Data[0]["id"] != devs[0].ID {
			t.Fatalf("page 2 = %+v", p)
		}
	})

	t.Run("OKStatus", func(t *testing.T) {
		sid, err := f.s.Store().SeedBinding(ctx, f.scope("production"), lic, devs[1].ID, "")
		if err != nil {
			t.Fatal(err)
		}
		m := f.do(t, "PATCH", "/devices/"+devs[1].ID, map[string]any{"status": "blocked"}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "id", "status")
		if m["id"] != devs[1].ID || m["status"] != "blocked" {
			t.Fatalf("answer = %v", m)
		}
		if reason, _ := f.s.Store().SessionRevokeReason(ctx, sid); reason != "status_change" {
			t.Fatalf("session revoke reason = %q", reason)
		}
		if p := getPage(t, f, "/devices?status=blocked"); p.Total != 1 || p.Data[0]["id"] != devs[1].ID {
			t.Fatalf("blocked filter = %+v", p)
		}
		f.do(t, "PATCH", "/devices/"+devs[1].ID, map[string]any{"status": "active"}).Want(t, http.StatusOK)
		if p := getPage(t, f, "/devices?status=active"); p.Total != 3 {
			t.Fatalf("active total = %d", p.Total)
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, body := range []any{map[string]any{"status": "banned"}, map[string]any{"status": 1}, map[string]any{}} {
			f.do(t, "PATCH", "/devices/"+devs[0].ID, body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
		for _, q := range []string{"status=disabled", "per_page=101", "page=abc"} {
			f.do(t, "GET", "/devices?"+q, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{missingID, "nope"} {
			f.do(t, "PATCH", "/devices/"+id, map[string]any{"status": "blocked"}).WantError(t, http.StatusNotFound, "not_found")
		}
		f.do(t, "PATCH", "/devices/"+devs[0].ID, map[string]any{"status": "blocked"}, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
		theirs := f.s.NewOrg(t)
		f.s.As(t, theirs.APIKey, "GET", "/v1/mgmt/applications/"+f.app+"/devices", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

func TestEndUserRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := seedUser(t, f, "production", "roles@example.com")
	devUser := seedUser(t, f, "development", "devroles@example.com")
	path := func(id string) string { return "/v1/mgmt/auth/users/" + id + "/roles" }

	roles := func(t *testing.T, r *servertest.Resp) []any {
		t.Helper()
		m := r.Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "success", "user_id", "roles")
		if m["success"] != true || m["user_id"] != u.ID {
			t.Fatalf("answer = %v", m)
		}
		return m["roles"].([]any)
	}

	t.Run("OK", func(t *testing.T) {
		if got := roles(t, f.s.As(t, f.key, "POST", path(u.ID), map[string]any{"role_id": "editor"})); fmt.Sprint(got) != "[editor]" {
			t.Fatalf("roles = %v", got)
		}
		if got := roles(t, f.s.As(t, f.key, "POST", path(u.ID), map[string]any{"role_id": "editor"})); fmt.Sprint(got) != "[editor]" {
			t.Fatalf("roles after repeat = %v, want idempotent", got)
		}
		if got := roles(t, f.s.As(t, f.key, "POST", path(u.ID), map[string]any{"role_id": "org:admin.v2"})); fmt.Sprint(got) != "[editor org:admin.v2]" {
			t.Fatalf("roles = %v", got)
		}
		p := getPage(t, f, "/users")
		if fmt.Sprint(p.Data[0]["roles"]) != "[editor org:admin.v2]" {
			t.Fatalf("user item roles = %v", p.Data[0]["roles"])
		}
		if got := roles(t, f.s.As(t, f.key, "DELETE", path(u.ID)+"/editor", nil)); fmt.Sprint(got) != "[org:admin.v2]" {
			t.Fatalf("roles after delete = %v", got)
		}
		if got := roles(t, f.s.As(t, f.key, "DELETE", path(u.ID)+"/editor", nil)); fmt.Sprint(got) != "[org:admin.v2]" {
			t.Fatalf("roles after repeated delete = %v", got)
		}
		// A development user is reached by its id, or in the development
		// environment when the call names one.
		f.s.As(t, f.key, "POST", path(devUser.ID), map[string]any{"role_id": "x"}, "x-environment", "development").Want(t, http.StatusOK)
		f.s.As(t, f.key, "POST", path(devUser.ID), map[string]any{"role_id": "x"}).Want(t, http.StatusOK)
		audit := getPage(t, f, "/audit-logs?event=user.role_added")
		if audit.Total != 2 {
			t.Fatalf("role_added entries = %d, want 2 (the repeat changes nothing)", audit.Total)
		}
	})

	t.Run("ErrOtherEnvironment", func(t *testing.T) {
		f.s.As(t, f.key, "POST", path(devUser.ID), map[string]any{"role_id": "y"}, "x-environment", "production").WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "DELETE", path(devUser.ID)+"/x", nil, "x-environment", "production").WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "POST", path(u.ID), map[string]any{"role_id": "y"}, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "POST", path(u.ID), map[string]any{"role_id": "y"}, "x-environment", "staging").WantError(t, http.StatusBadRequest, "validation_failed")
		devUsers := getPage(t, f, "/users", "x-environment", "development")
		if len(devUsers.Data) != 1 || fmt.Sprint(devUsers.Data[0]["roles"]) != "[x]" {
			t.Fatalf("development users after refused calls = %v", devUsers.Data)
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, body := range []any{map[string]any{}, map[string]any{"role_id": "Admin"}, map[string]any{"role_id": "has space"}, map[string]any{"role_id": 3}} {
			f.s.As(t, f.key, "POST", path(u.ID), body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{missingID, "nope"} {
			f.s.As(t, f.key, "POST", path(id), map[string]any{"role_id": "x"}).WantError(t, http.StatusNotFound, "not_found")
			f.s.As(t, f.key, "DELETE", path(id)+"/x", nil).WantError(t, http.StatusNotFound, "not_found")
		}
		theirs := f.s.NewOrg(t)
		f.s.As(t, theirs.APIKey, "POST", path(u.ID), map[string]any{"role_id": "x"}).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, theirs.APIKey, "DELETE", path(u.ID)+"/editor", nil).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("AppSecrets", func(t *testing.T) {
		secret := func(app string) string {
			envs := f.s.As(t, f.key, "GET", "/v1/mgmt/applications/"+app+"/environments", nil).List(t)
			var out struct {
				Plaintext string `json:"plaintext"`
			}
			f.s.As(t, f.key, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": envs[1]["id"]}).Want(t, http.StatusCreated).JSON(t, &out)
			return out.Plaintext
		}
		own, other := secret(f.app), secret(newApp(t, f.s, f.key, "Other"))
		f.s.As(t, own, "POST", path(u.ID), map[string]any{"role_id": "via-secret"}).Want(t, http.StatusOK)
		f.s.As(t, other, "POST", path(u.ID), map[string]any{"role_id": "x"}).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, other, "DELETE", path(u.ID)+"/via-secret", nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.Do(t, "POST", path(u.ID), map[string]any{"role_id": "x"}).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})
}

// TestLicenseDevicesPaged: the license detail carries devices_count and the
// first page of its devices only; GET …/devices?license_id= pages them all
// (docs/design.md §7, issue 23).
func TestLicenseDevicesPaged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	lic := generate(t, f, map[string]any{"plan_id": f.newPlan(t, map[string]any{"name": "Site", "max_devices": 1000})})[0]["id"].(string)
	const n = 23
	var devs []string // newest first
	for i := range n {
		d := seedDevice(t, f, "production", fmt.Sprintf("site-%02d", i))
		if _, err := f.s.Store().SeedBinding(ctx, f.scope("production"), lic, d.ID, ""); err != nil {
			t.Fatal(err)
		}
		devs = append([]string{d.ID}, devs...)
	}
	ids := func(data []map[string]any) (out []string) {
		for _, d := range data {
			out = append(out, d["id"].(string))
		}
		return out
	}

	t.Run("OKDetail", func(t *testing.T) {
		var d struct {
			Count   int              `json:"devices_count"`
			Devices []map[string]any `json:"devices"`
		}
		f.do(t, "GET", "/licenses/"+lic, nil).Want(t, http.StatusOK).JSON(t, &d)
		if d.Count != n || fmt.Sprint(ids(d.Devices)) != fmt.Sprint(devs[:20]) {
			t.Fatalf("detail: devices_count %d, devices %v; want %d, the newest 20", d.Count, ids(d.Devices), n)
		}
		item := getPage(t, f, "/licenses").Data[0]
		if item["devices_count"] != float64(n) {
			t.Fatalf("list item devices_count = %v", item["devices_count"])
		}
	})
	t.Run("OKListByLicense", func(t *testing.T) {
		p1 := getPage(t, f, "/devices?license_id="+lic+"&per_page=20")
		p2 := getPage(t, f, "/devices?license_id="+lic+"&per_page=20&page=2")
		if p1.Total != n || p2.Total != n || p2.Page != 2 || fmt.Sprint(append(ids(p1.Data), ids(p2.Data)...)) != fmt.Sprint(devs) {
			t.Fatalf("pages: %d+%d devices of %d/%d", len(p1.Data), len(p2.Data), p1.Total, p2.Total)
		}
		for _, d := range p2.Data {
			if fmt.Sprint(d["license_ids"]) != "["+lic+"]" {
				t.Fatalf("device %v", d)
			}
		}
	})
	t.Run("OKResetUnbinds", func(t *testing.T) {
		f.do(t, "POST", "/licenses/"+lic+"/reset-device", map[string]any{"device_id": devs[0]}).Want(t, http.StatusOK)
		p := getPage(t, f, "/devices?license_id="+lic)
		if p.Total != n-1 || p.Data[0]["id"] != devs[1] {
			t.Fatalf("after the reset: total %d, first %v", p.Total, p.Data[0]["id"])
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, q := range []string{"license_id=nope", "license_id=" + lic + "&status=active", "license_id=" + lic + "&fingerprint=site-01"} {
			f.do(t, "GET", "/devices?"+q, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
		f.do(t, "GET", "/users?license_id="+lic, nil).WantError(t, http.StatusBadRequest, "validation_failed")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.do(t, "GET", "/devices?license_id="+store.NewID(), nil).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "GET", "/devices?license_id="+lic, nil, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
	})
}

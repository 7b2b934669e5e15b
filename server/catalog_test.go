package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
)

const missingID = "0190c0de-0000-7000-8000-000000000000"

// fixture is an organization with one application, as most tests need.
type fixture struct {
	s   *servertest.Server
	org *servertest.Org
	key string
	app string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := servertest.New(t)
	org := s.NewOrg(t)
	return &fixture{s: s, org: org, key: org.APIKey, app: newApp(t, s, org.APIKey, "Fixture App")}
}

// do sends a request with the fixture's API key to a path under its application.
func (f *fixture) do(t *testing.T, method, sub string, body any, hdr ...string) *servertest.Resp {
	t.Helper()
	return f.s.As(t, f.key, method, "/v1/mgmt/applications/"+f.app+sub, body, hdr...)
}

// scope is the store scope of the fixture's application in env.
func (f *fixture) scope(env string) store.Scope {
	return store.Scope{OrgID: f.org.ID, AppID: f.app, Env: env}
}

func (f *fixture) newEntitlement(t *testing.T, key string) string {
	t.Helper()
	var out struct {
		EntitlementID string `json:"entitlement_id"`
	}
	f.do(t, "POST", "/entitlements", map[string]any{"key": key, "name": "Feature " + key}).Want(t, http.StatusCreated).JSON(t, &out)
	return out.EntitlementID
}

func (f *fixture) newPlan(t *testing.T, body map[string]any) string {
	t.Helper()
	if body["name"] == nil {
		body["name"] = "Plan"
	}
	var out struct {
		PlanID string `json:"plan_id"`
	}
	f.do(t, "POST", "/plans", body).Want(t, http.StatusCreated).JSON(t, &out)
	return out.PlanID
}

func (f *fixture) planItem(t *testing.T, id string) map[string]any {
	t.Helper()
	for _, p := range f.do(t, "GET", "/plans", nil).Want(t, http.StatusOK).List(t) {
		if p["id"] == id {
			return p
		}
	}
	t.Fatalf("plan %s not listed", id)
	return nil
}

func TestEntitlements(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	t.Run("OK", func(t *testing.T) {
		r := f.do(t, "POST", "/entitlements", map[string]any{"key": "export.pdf", "name": "PDF export", "description": "Export to PDF"}).Want(t, http.StatusCreated)
		created := r.Map(t)
		servertest.WantKeys(t, created, "entitlement_id")
		id := created["entitlement_id"].(string)
		if !store.ValidID(id) {
			t.Fatalf("entitlement_id = %q", id)
		}
		f.do(t, "POST", "/entitlements", map[string]any{"key": "a", "name": "A"}).Want(t, http.StatusCreated)
		list := f.do(t, "GET", "/entitlements", nil).Want(t, http.StatusOK).List(t)
		if len(list) != 2 {
			t.Fatalf("list = %v", list)
		}
		for _, e := range list {
			servertest.WantKeys(t, e, "id", "key", "name", "description", "created_at")
			servertest.WantTime(t, "created_at", e["created_at"])
		}
		// Newest first.
		got := list[1]
		if got["id"] != id || got["key"] != "export.pdf" || got["name"] != "PDF export" || got["description"] != "Export to PDF" {
			t.Fatalf("item = %v", got)
		}
		if list[0]["description"] != nil {
			t.Fatalf("description without one = %v, want null", list[0]["description"])
		}
	})

	t.Run("ErrConflict", func(t *testing.T) {
		f.do(t, "POST", "/entitlements", map[string]any{"key": "export.pdf", "name": "Again"}).WantError(t, http.StatusConflict, "conflict")
		// Keys are per application.
		other := newApp(t, f.s, f.key, "Other App")
		f.s.As(t, f.key, "POST", "/v1/mgmt/applications/"+other+"/entitlements", map[string]any{"key": "export.pdf", "name": "PDF"}).Want(t, http.StatusCreated)
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{"key": "", "name": "X"},
			map[string]any{"key": "Upper", "name": "X"},
			map[string]any{"key": "-lead", "name": "X"},
			map[string]any{"key": "has space", "name": "X"},
			map[string]any{"key": strings.Repeat("k", 65), "name": "X"},
			map[string]any{"key": "ok", "name": ""},
			map[string]any{"key": "ok", "name": strings.Repeat("n", 101)},
			map[string]any{"key": 7, "name": "X"},
			map[string]any{"key": "ok", "name": "X", "description": 3},
		} {
			f.do(t, "POST", "/entitlements", body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
		f.do(t, "POST", "/entitlements", "[]").WantError(t, http.StatusBadRequest, "invalid_json")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		f.do(t, "DELETE", "/entitlements/"+missingID, nil).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "DELETE", "/entitlements/nope", nil).WantError(t, http.StatusNotFound, "not_found")
		theirs := f.s.NewOrg(t)
		app := newApp(t, f.s, theirs.APIKey, "Theirs")
		for _, m := range []string{"GET", "POST"} {
			f.s.As(t, f.key, m, "/v1/mgmt/applications/"+app+"/entitlements", map[string]any{"key": "x", "name": "X"}).WantError(t, http.StatusNotFound, "not_found")
		}
		var out struct {
			EntitlementID string `json:"entitlement_id"`
		}
		f.s.As(t, theirs.APIKey, "POST", "/v1/mgmt/applications/"+app+"/entitlements", map[string]any{"key": "x", "name": "X"}).Want(t, http.StatusCreated).JSON(t, &out)
		f.do(t, "DELETE", "/entitlements/"+out.EntitlementID, nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "GET", "/v1/mgmt/applications/nope/entitlements", nil).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("DeleteRemovesFromPlansAndLicenses", func(t *testing.T) {
		keep, gone := f.newEntitlement(t, "keep"), f.newEntitlement(t, "gone")
		plan := f.newPlan(t, map[string]any{"entitlement_ids": []string{keep, gone}})
		lic := generate(t, f, map[string]any{"plan_id": plan, "entitlement_ids": []string{gone}})[0]["id"].(string)
		f.do(t, "DELETE", "/entitlements/"+gone, nil).Want(t, http.StatusOK)
		ents := f.planItem(t, plan)["entitlements"].([]any)
		if len(ents) != 1 || ents[0].(map[string]any)["id"] != keep {
			t.Fatalf("plan entitlements = %v", ents)
		}
		d := f.do(t, "GET", "/licenses/"+lic, nil).Want(t, http.StatusOK).Map(t)
		if ents := d["entitlements"].([]any); len(ents) != 1 || ents[0].(map[string]any)["key"] != "keep" {
			t.Fatalf("license entitlements = %v", ents)
		}
		f.do(t, "DELETE", "/entitlements/"+gone, nil).WantError(t, http.StatusNotFound, "not_found")
		// The key is free again.
		f.newEntitlement(t, "gone")
	})
}

func TestPlans(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e1, e2 := f.newEntitlement(t, "e1"), f.newEntitlement(t, "e2")

	t.Run("OKDefaults", func(t *testing.T) {
		r := f.do(t, "POST", "/plans", map[string]any{"name": "Basic"}).Want(t, http.StatusCreated)
		servertest.WantKeys(t, r.Map(t), "plan_id")
		id := r.Map(t)["plan_id"].(string)
		p := f.planItem(t, id)
		servertest.WantKeys(t, p, "id", "name", "is_trial", "duration_days", "max_devices", "device_reset_limit",
			"device_reset_window_days", "max_concurrent", "lease_seconds", "max_offline_days", "maintenance_days", "rebind", "external_product_id", "policies", "entitlements", "created_at", "updated_at")
		want := map[string]any{"name": "Basic", "is_trial": false, "duration_days": nil, "max_devices": 1.0, "device_reset_limit": 3.0,
			"device_reset_window_days": 0.0, "max_concurrent": 0.0, "lease_seconds": 900.0, "max_offline_days": 30.0, "rebind": "most", "external_product_id": nil, "policies": nil}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s = %v, want %v", k, p[k], v)
			}
		}
		if ents := p["entitlements"].([]any); len(ents) != 0 {
			t.Errorf("entitlements = %v, want []", ents)
		}
		servertest.WantTime(t, "created_at", p["created_at"])
		servertest.WantTime(t, "updated_at", p["updated_at"])
		// The detail read is the list item.
		d := f.do(t, "GET", "/plans/"+id, nil).Want(t, http.StatusOK).Map(t)
		if d["id"] != id || d["name"] != "Basic" {
			t.Fatalf("detail = %v", d)
		}
	})

	t.Run("OKAllFields", func(t *testing.T) {
		id := f.newPlan(t, map[string]any{"name": "Pro", "is_trial": true, "duration_days": 14, "max_devices": 3, "device_reset_limit": 0, "device_reset_window_days": 30,
			"external_product_id": "prod_123", "policies": map[string]any{"offline_days": 7, "nested": map[string]any{"a": []any{1, "x"}}},
			"entitlement_ids": []string{e1, e2, e1}})
		p := f.planItem(t, id)
		if p["is_trial"] != true || p["duration_days"] != 14.0 || p["max_devices"] != 3.0 || p["device_reset_limit"] != 0.0 || p["device_reset_window_days"] != 30.0 || p["external_product_id"] != "prod_123" {
			t.Fatalf("plan = %v", p)
		}
		pol := p["policies"].(map[string]any)
		if pol["offline_days"] != 7.0 || pol["nested"].(map[string]any)["a"].([]any)[1] != "x" {
			t.Fatalf("policies = %v", pol)
		}
		ents := p["entitlements"].([]any)
		if len(ents) != 2 {
			t.Fatalf("entitlements = %v (duplicates must collapse)", ents)
		}
		e := ents[0].(map[string]any)
		servertest.WantKeys(t, e, "id", "key", "name")
		if e["id"] != e1 || e["key"] != "e1" || e["name"] != "Feature e1" {
			t.Fatalf("entitlement = %v", e)
		}
	})

	t.Run("PatchPartial", func(t *testing.T) {
		id := f.newPlan(t, map[string]any{"name": "Team", "duration_days": 30, "max_devices": 5, "policies": map[string]any{"a": 1}, "entitlement_ids": []string{e1}})
		before := f.planItem(t, id)
		f.s.Clock().Advance(1000)
		r := f.do(t, "PATCH", "/plans/"+id, map[string]any{"name": "Team+"}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, r, "plan_id")
		if r["plan_id"] != id {
			t.Fatalf("plan_id = %v", r["plan_id"])
		}
		p := f.planItem(t, id)
		if p["name"] != "Team+" || p["duration_days"] != 30.0 || p["max_devices"] != 5.0 || p["policies"].(map[string]any)["a"] != 1.0 || len(p["entitlements"].([]any)) != 1 {
			t.Fatalf("after name patch = %v", p)
		}
		if p["updated_at"] == before["updated_at"] || p["created_at"] != before["created_at"] {
			t.Fatalf("timestamps: before %v, after %v", before, p)
		}
		f.do(t, "PATCH", "/plans/"+id, map[string]any{"duration_days": nil, "policies": nil, "entitlement_ids": []string{e2}, "is_trial": true}).Want(t, http.StatusOK)
		p = f.planItem(t, id)
		ents := p["entitlements"].([]any)
		if p["duration_days"] != nil || p["policies"] != nil || p["is_trial"] != true || len(ents) != 1 || ents[0].(map[string]any)["id"] != e2 {
			t.Fatalf("after null patch = %v", p)
		}
		audited := getPage(t, f, "/audit-logs?event=plan.updated").Total
		f.do(t, "PATCH", "/plans/"+id, map[string]any{}).Want(t, http.StatusOK)
		if got := getPage(t, f, "/audit-logs?event=plan.updated").Total; got != audited {
			t.Fatalf("an empty PATCH was audited: %d entries, want %d", got, audited)
		}
		f.do(t, "PATCH", "/plans/"+id, map[string]any{"entitlement_ids": []string{}}).Want(t, http.StatusOK)
		if ents := f.planItem(t, id)["entitlements"].([]any); len(ents) != 0 {
			t.Fatalf("entitlements after [] = %v", ents)
		}
		for _, mode := range []string{"off", "most"} {
			f.do(t, "PATCH", "/plans/"+id, map[string]any{"rebind": mode}).Want(t, http.StatusOK)
			if p := f.planItem(t, id); p["rebind"] != mode || p["name"] != "Team+" {
				t.Fatalf("after rebind %s patch = %v", mode, p)
			}
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		big := map[string]any{"x": strings.Repeat("p", store.MaxPoliciesBytes)}
		for name, body := range map[string]map[string]any{
			"no name":              {},
			"empty name":           {"name": " "},
			"null name":            {"name": nil},
			"max_devices 0":        {"name": "X", "max_devices": 0},
			"max_devices string":   {"name": "X", "max_devices": "2"},
			"max_devices float":    {"name": "X", "max_devices": 1.5},
			"reset limit negative": {"name": "X", "device_reset_limit": -1},
			"duration 0":           {"name": "X", "duration_days": 0},
			"reset window -1":      {"name": "X", "device_reset_window_days": -1},
			"reset window 3651":    {"name": "X", "device_reset_window_days": 3651},
			"reset window null":    {"name": "X", "device_reset_window_days": nil},
			"is_trial string":      {"name": "X", "is_trial": "yes"},
			"policies array":       {"name": "X", "policies": []any{1}},
			"policies string":      {"name": "X", "policies": "{}"},
			"policies too large":   {"name": "X", "policies": big},
			"unknown entitlement":  {"name": "X", "entitlement_ids": []string{missingID}},
			"malformed entitle.":   {"name": "X", "entitlement_ids": []string{"nope"}},
			"entitlement_ids str":  {"name": "X", "entitlement_ids": "e1"},
			"external id number":   {"name": "X", "external_product_id": 5},
			"rebind unknown":       {"name": "X", "rebind": "some"},
			"rebind empty":         {"name": "X", "rebind": ""},
			"rebind null":          {"name": "X", "rebind": nil},
			"rebind boolean":       {"name": "X", "rebind": false},
		} {
			t.Run(name, func(t *testing.T) {
				f.do(t, "POST", "/plans", body).WantError(t, http.StatusBadRequest, "validation_failed")
			})
		}
		id := f.newPlan(t, map[string]any{"name": "Patchable"})
		f.do(t, "PATCH", "/plans/"+id, map[string]any{"max_devices": 0}).WantError(t, http.StatusBadRequest, "validation_failed")
		f.do(t, "PATCH", "/plans/"+id, map[string]any{"name": nil}).WantError(t, http.StatusBadRequest, "validation_failed")
		// Another application's entitlement is unknown here.
		other := newApp(t, f.s, f.key, "Other")
		var out struct {
			EntitlementID string `json:"entitlement_id"`
		}
		f.s.As(t, f.key, "POST", "/v1/mgmt/applications/"+other+"/entitlements", map[string]any{"key": "x", "name": "X"}).JSON(t, &out)
		f.do(t, "PATCH", "/plans/"+id, map[string]any{"entitlement_ids": []string{out.EntitlementID}}).WantError(t, http.StatusBadRequest, "validation_failed")
	})

	t.Run("ErrPlanInUse", func(t *testing.T) {
		id := f.newPlan(t, map[string]any{"name": "Used"})
		lics := generate(t, f, map[string]any{"plan_id": id, "quantity": 2})
		f.do(t, "DELETE", "/plans/"+id, nil).WantError(t, http.StatusConflict, "plan_in_use")
		f.do(t, "PATCH", "/licenses/"+lics[0]["id"].(string), map[string]any{"status": "suspended"}).Want(t, http.StatusOK)
		f.do(t, "PATCH", "/licenses/"+lics[1]["id"].(string), map[string]any{"status": "revoked"}).Want(t, http.StatusOK)
		f.do(t, "DELETE", "/plans/"+id, nil).WantError(t, http.StatusConflict, "plan_in_use")
		f.do(t, "PATCH", "/licenses/"+lics[0]["id"].(string), map[string]any{"status": "banned"}).Want(t, http.StatusOK)
		r := f.do(t, "DELETE", "/plans/"+id, nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, r, "success")
		f.do(t, "GET", "/plans/"+id, nil).WantError(t, http.StatusNotFound, "not_found")
		// Its revoked licenses remain readable.
		d := f.do(t, "GET", "/licenses/"+lics[1]["id"].(string), nil).Want(t, http.StatusOK).Map(t)
		if d["plan"].(map[string]any)["id"] != id {
			t.Fatalf("plan of a license of a deleted plan = %v", d["plan"])
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, path := range []string{"/plans/" + missingID, "/plans/nope"} {
			for _, m := range []string{"GET", "PATCH", "DELETE"} {
				f.do(t, m, path, map[string]any{"name": "X"}).WantError(t, http.StatusNotFound, "not_found")
			}
		}
		theirs := f.s.NewOrg(t)
		app := newApp(t, f.s, theirs.APIKey, "Theirs")
		var out struct {
			PlanID string `json:"plan_id"`
		}
		f.s.As(t, theirs.APIKey, "POST", "/v1/mgmt/applications/"+app+"/plans", map[string]any{"name": "X"}).Want(t, http.StatusCreated).JSON(t, &out)
		f.do(t, "PATCH", "/plans/"+out.PlanID, map[string]any{"name": "Mine"}).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "DELETE", "/v1/mgmt/applications/"+app+"/plans/"+out.PlanID, nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "GET", "/v1/mgmt/applications/"+app+"/plans", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

// seedUser registers an end-user straight into the store.
func seedUser(t *testing.T, f *fixture, env, email string) *store.EndUser {
	t.Helper()
	u, err := f.s.Store().RegisterEndUser(context.Background(), f.scope(env), email, "a long enough password 1")
	if err != nil {
		t.Fatalf("RegisterEndUser: %v", err)
	}
	return u
}

// seedDevice creates a device straight in the store.
func seedDevice(t *testing.T, f *fixture, env, fp string) *store.Device {
	t.Helper()
	d, err := f.s.Store().EnsureDevice(context.Background(), f.scope(env), fp)
	if err != nil {
		t.Fatalf("EnsureDevice: %v", err)
	}
	return d
}

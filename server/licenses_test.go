package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

var keyRE = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$`)

// generate generates licenses through the API and returns the items.
func generate(t *testing.T, f *fixture, body map[string]any, hdr ...string) []map[string]any {
	t.Helper()
	var out struct {
		Licenses []map[string]any `json:"licenses"`
	}
	f.do(t, "POST", "/licenses", body, hdr...).Want(t, http.StatusCreated).JSON(t, &out)
	return out.Licenses
}

// page reads a list endpoint's envelope.
type page struct {
	Data       []map[string]any `json:"data"`
	Total      int              `json:"total"`
	Page       int              `json:"page"`
	PerPage    int              `json:"per_page"`
	NextCursor string           `json:"next_cursor"`
}

func getPage(t *testing.T, f *fixture, path string, hdr ...string) page {
	t.Helper()
	r := f.do(t, "GET", path, nil, hdr...).Want(t, http.StatusOK)
	servertest.WantKeys(t, r.Map(t), "data", "total", "page", "per_page", "next_cursor")
	var p page
	r.JSON(t, &p)
	return p
}

var licenseItemKeys = []string{"id", "key", "status", "plan", "user", "devices_count", "activated_at", "expires_at", "maintenance_expires_at", "created_at", "updated_at"}

func TestGenerateLicenses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plan := f.newPlan(t, map[string]any{"name": "Gen", "device_reset_limit": 5})

	t.Run("OK", func(t *testing.T) {
		r := f.do(t, "POST", "/licenses", map[string]any{"plan_id": plan}).Want(t, http.StatusCreated)
		servertest.WantKeys(t, r.Map(t), "licenses")
		var out struct {
			Licenses []map[string]any `json:"licenses"`
		}
		r.JSON(t, &out)
		if len(out.Licenses) != 1 {
			t.Fatalf("default quantity gave %d licenses", len(out.Licenses))
		}
		l := out.Licenses[0]
		servertest.WantKeys(t, l, licenseItemKeys...)
		if !keyRE.MatchString(l["key"].(string)) {
			t.Fatalf("key = %v", l["key"])
		}
		if l["status"] != "inactive" || l["user"] != nil || l["devices_count"] != 0.0 || l["activated_at"] != nil || l["expires_at"] != nil {
			t.Fatalf("item = %v", l)
		}
		p := l["plan"].(map[string]any)
		servertest.WantKeys(t, p, "id", "name")
		if p["id"] != plan || p["name"] != "Gen" {
			t.Fatalf("plan = %v", p)
		}
		servertest.WantTime(t, "created_at", l["created_at"])
		servertest.WantTime(t, "updated_at", l["updated_at"])
		d := f.do(t, "GET", "/licenses/"+l["id"].(string), nil).Want(t, http.StatusOK).Map(t)
		if d["device_resets_remaining"] != 5.0 {
			t.Fatalf("device_resets_remaining = %v, want the plan's 5", d["device_resets_remaining"])
		}
	})

	t.Run("OKThousandInOneCall", func(t *testing.T) {
		exp := f.s.Clock().Now().Add(48 * time.Hour).In(time.FixedZone("x", 3600)).Format(time.RFC3339)
		lics := generate(t, f, map[string]any{"plan_id": plan, "quantity": 1000, "expires_at": exp})
		if len(lics) != 1000 {
			t.Fatalf("got %d licenses", len(lics))
		}
		seen := map[string]bool{}
		want, _ := time.Parse(time.RFC3339, exp)
		for _, l := range lics {
			k := l["key"].(string)
			if !keyRE.MatchString(k) || seen[k] {
				t.Fatalf("key %q malformed or repeated", k)
			}
			seen[k] = true
			servertest.WantTime(t, "expires_at", l["expires_at"])
			if got, _ := time.Parse(time.RFC3339, l["expires_at"].(string)); !got.Equal(want) {
				t.Fatalf("expires_at = %v, want %v", got, want)
			}
		}
		if p := getPage(t, f, "/licenses?plan_id="+plan); p.Total != 1001 {
			t.Fatalf("total = %d, want 1001", p.Total)
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		other := newApp(t, f.s, f.key, "Other")
		var op struct {
			PlanID string `json:"plan_id"`
		}
		f.s.As(t, f.key, "POST", "/v1/mgmt/applications/"+other+"/plans", map[string]any{"name": "X"}).JSON(t, &op)
		for _, q := range []any{2.5, json.RawMessage("2.0"), "5"} {
			r := f.do(t, "POST", "/licenses", map[string]any{"plan_id": plan, "quantity": q})
			r.WantError(t, http.StatusBadRequest, "validation_failed")
			if !strings.Contains(string(r.Body), "quantity must be of type integer") {
				t.Fatalf("quantity %v: %s; want it to say an integer is needed", q, r.Body)
			}
		}
		for name, body := range map[string]map[string]any{
			"quantity 1001":       {"plan_id": plan, "quantity": 1001},
			"quantity 0":          {"plan_id": plan, "quantity": 0},
			"quantity negative":   {"plan_id": plan, "quantity": -1},
			"quantity string":     {"plan_id": plan, "quantity": "5"},
			"quantity float":      {"plan_id": plan, "quantity": 2.5},
			"no plan":             {},
			"plan malformed":      {"plan_id": "nope"},
			"plan unknown":        {"plan_id": missingID},
			"plan of another app": {"plan_id": op.PlanID},
			"plan number":         {"plan_id": 4},
			"expires past":        {"plan_id": plan, "expires_at": f.s.Clock().Now().Add(-time.Minute).Format(time.RFC3339)},
			"expires now":         {"plan_id": plan, "expires_at": f.s.Clock().Now().Format(time.RFC3339Nano)},
			"expires not rfc3339": {"plan_id": plan, "expires_at": "2030-01-01"},
			"expires number":      {"plan_id": plan, "expires_at": 1},
			"entitlement unknown": {"plan_id": plan, "entitlement_ids": []string{missingID}},
			"entitlement bad":     {"plan_id": plan, "entitlement_ids": []string{"x"}},
			"entitlements object": {"plan_id": plan, "entitlement_ids": map[string]any{}},
		} {
			t.Run(name, func(t *testing.T) {
				f.do(t, "POST", "/licenses", body).WantError(t, http.StatusBadRequest, "validation_failed")
			})
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		theirs := f.s.NewOrg(t)
		app := newApp(t, f.s, theirs.APIKey, "Theirs")
		f.s.As(t, f.key, "POST", "/v1/mgmt/applications/"+app+"/licenses", map[string]any{"plan_id": plan}).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "POST", "/v1/mgmt/applications/nope/licenses", map[string]any{"plan_id": plan}).WantError(t, http.StatusNotFound, "not_found")
	})
}

func TestListLicenses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	planA := f.newPlan(t, map[string]any{"name": "A"})
	planB := f.newPlan(t, map[string]any{"name": "B"})
	a := generate(t, f, map[string]any{"plan_id": planA, "quantity": 20})
	f.s.Clock().Advance(time.Second)
	b := generate(t, f, map[string]any{"plan_id": planB, "quantity": 5})
	for _, l := range []map[string]any{a[0], a[1], b[0]} {
		f.do(t, "PATCH", "/licenses/"+l["id"].(string), map[string]any{"status": "suspended"}).Want(t, http.StatusOK)
	}

	t.Run("Pages", func(t *testing.T) {
		for _, c := range []struct {
			query                 string
			total, n, page, perPg int
		}{
			{"", 25, 20, 1, 20},
			{"?page=2", 25, 5, 2, 20},
			{"?per_page=10&page=3", 25, 5, 3, 10},
			{"?per_page=10&page=4", 25, 0, 4, 10},
			{"?per_page=100", 25, 25, 1, 100},
			{"?per_page=1", 25, 1, 1, 1},
			{"?status=suspended", 3, 3, 1, 20},
			{"?status=inactive&per_page=5", 22, 5, 1, 5},
			{"?status=revoked", 0, 0, 1, 20},
			{"?plan_id=" + planB, 5, 5, 1, 20},
			{"?plan_id=" + planA + "&status=suspended", 2, 2, 1, 20},
			{"?plan_id=" + planA + "&status=inactive&page=2&per_page=10", 18, 8, 2, 10},
			{"?plan_id=" + missingID, 0, 0, 1, 20},
		} {
			p := getPage(t, f, "/licenses"+c.query)
			if p.Total != c.total || len(p.Data) != c.n || p.Page != c.page || p.PerPage != c.perPg {
				t.Errorf("%s: total %d, len %d, page %d, per_page %d; want %d, %d, %d, %d", c.query, p.Total, len(p.Data), p.Page, p.PerPage, c.total, c.n, c.page, c.perPg)
			}
			if len(p.Data) == 0 && p.Data == nil {
				t.Errorf("%s: data is null, want []", c.query)
			}
		}
	})

	t.Run("NewestFirst", func(t *testing.T) {
		p := getPage(t, f, "/licenses?per_page=100")
		if p.Data[0]["id"] != b[4]["id"] || p.Data[24]["id"] != a[0]["id"] {
			t.Fatalf("order: first %v, last %v", p.Data[0]["id"], p.Data[24]["id"])
		}
		for _, l := range p.Data {
			servertest.WantKeys(t, l, licenseItemKeys...)
		}
	})

	t.Run("Environments", func(t *testing.T) {
		generate(t, f, map[string]any{"plan_id": planA, "quantity": 2}, "x-environment", "development")
		if p := getPage(t, f, "/licenses", "x-environment", "development"); p.Total != 2 {
			t.Fatalf("development total = %d", p.Total)
		}
		if p := getPage(t, f, "/licenses"); p.Total != 25 {
			t.Fatalf("production total = %d", p.Total)
		}
		f.do(t, "GET", "/licenses/"+a[0]["id"].(string), nil, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "GET", "/licenses", nil, "x-environment", "staging").WantError(t, http.StatusBadRequest, "validation_failed")
	})

	t.Run("AppSecretSeesItsEnvironment", func(t *testing.T) {
		envs := f.do(t, "GET", "/environments", nil).List(t)
		var dev string
		for _, e := range envs {
			if e["name"] == "development" {
				dev = e["id"].(string)
			}
		}
		var sec struct {
			Plaintext string `json:"plaintext"`
		}
		f.do(t, "POST", "/secrets", map[string]any{"environment_id": dev}).Want(t, http.StatusCreated).JSON(t, &sec)
		// The header cannot move a secret out of its environment.
		r := f.s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+f.app+"/licenses", nil, "x-environment", "production").Want(t, http.StatusOK)
		var p page
		r.JSON(t, &p)
		if p.Total != 2 {
			t.Fatalf("development secret sees %d licenses, want 2", p.Total)
		}
		f.s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+f.app+"/licenses/"+a[0]["id"].(string), nil).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		for _, path := range []string{"/licenses", "/plans", "/entitlements", "/users", "/devices", "/audit-logs"} {
			f.s.Do(t, "GET", "/v1/mgmt/applications/"+f.app+path, nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		}
	})

	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		f.do(t, "PUT", "/licenses", nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
		f.do(t, "DELETE", "/licenses/"+a[0]["id"].(string), nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
		f.do(t, "GET", "/licenses/"+a[0]["id"].(string)+"/reset-device", nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, q := range []string{"per_page=0", "per_page=101", "per_page=abc", "page=0", "page=-1", "page=abc", "page=1.5", "status=bogus", "status=Active", "plan_id=nope"} {
			f.do(t, "GET", "/licenses?"+q, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})
}

func TestLicenseDetailAndStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	e1, e2, e3 := f.newEntitlement(t, "e1"), f.newEntitlement(t, "e2"), f.newEntitlement(t, "e3")
	plan := f.newPlan(t, map[string]any{"name": "Detail", "entitlement_ids": []string{e1, e2}, "device_reset_limit": 2})
	newLicense := func(t *testing.T) string {
		t.Helper()
		return generate(t, f, map[string]any{"plan_id": plan, "entitlement_ids": []string{e2, e3}})[0]["id"].(string)
	}
	user := seedUser(t, f, "production", "holder@example.com")

	t.Run("OKDetail", func(t *testing.T) {
		id := newLicense(t)
		dev := seedDevice(t, f, "production", "fp-detail")
		if _, err := f.s.Store().SeedBinding(ctx, f.scope("production"), id, dev.ID, user.ID); err != nil {
			t.Fatal(err)
		}
		d := f.do(t, "GET", "/licenses/"+id, nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, d, "id", "key", "status", "plan", "user", "devices", "devices_count", "entitlements", "activated_at", "expires_at", "maintenance_expires_at",
			"device_resets_remaining", "created_at", "updated_at")
		if d["id"] != id || !keyRE.MatchString(d["key"].(string)) || d["status"] != "inactive" || d["device_resets_remaining"] != 2.0 || d["devices_count"] != 1.0 {
			t.Fatalf("detail = %v", d)
		}
		u := d["user"].(map[string]any)
		servertest.WantKeys(t, u, "id", "email")
		if u["id"] != user.ID || u["email"] != "holder@example.com" {
			t.Fatalf("user = %v", u)
		}
		devs := d["devices"].([]any)
		if len(devs) != 1 {
			t.Fatalf("devices = %v", devs)
		}
		dv := devs[0].(map[string]any)
		servertest.WantKeys(t, dv, "id", "fingerprint", "status", "bound_at", "last_seen_at")
		if dv["id"] != dev.ID || dv["fingerprint"] != "fp-detail" || dv["status"] != "active" || dv["last_seen_at"] != nil {
			t.Fatalf("device = %v", dv)
		}
		servertest.WantTime(t, "bound_at", dv["bound_at"])
		var keys []string
		for _, e := range d["entitlements"].([]any) {
			m := e.(map[string]any)
			servertest.WantKeys(t, m, "id", "key", "name")
			keys = append(keys, m["key"].(string))
		}
		if fmt.Sprint(keys) != "[e1 e2 e3]" {
			t.Fatalf("entitlements = %v, want plan's ∪ license's", keys)
		}
		// Live: a plan change shows at once.
		f.do(t, "PATCH", "/plans/"+plan, map[string]any{"entitlement_ids": []string{e1}}).Want(t, http.StatusOK)
		d = f.do(t, "GET", "/licenses/"+id, nil).Map(t)
		if n := len(d["entitlements"].([]any)); n != 3 {
			t.Fatalf("entitlements after plan change = %d, want 3 (e1 + own e2, e3)", n)
		}
		f.do(t, "PATCH", "/plans/"+plan, map[string]any{"entitlement_ids": []string{e1, e2}}).Want(t, http.StatusOK)
		// The list item shows the user and the device count.
		p := getPage(t, f, "/licenses?per_page=1")
		if p.Data[0]["devices_count"] != 1.0 || p.Data[0]["user"].(map[string]any)["email"] != "holder@example.com" {
			t.Fatalf("item = %v", p.Data[0])
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{missingID, "nope"} {
			f.do(t, "GET", "/licenses/"+id, nil).WantError(t, http.StatusNotFound, "not_found")
			f.do(t, "PATCH", "/licenses/"+id, map[string]any{"status": "revoked"}).WantError(t, http.StatusNotFound, "not_found")
			f.do(t, "POST", "/licenses/"+id+"/reset-device", map[string]any{"device_id": missingID}).WantError(t, http.StatusNotFound, "not_found")
		}
		theirs := f.s.NewOrg(t)
		app := newApp(t, f.s, theirs.APIKey, "Theirs")
		var op struct {
			PlanID string `json:"plan_id"`
		}
		f.s.As(t, theirs.APIKey, "POST", "/v1/mgmt/applications/"+app+"/plans", map[string]any{"name": "X"}).JSON(t, &op)
		var out struct {
			Licenses []map[string]any `json:"licenses"`
		}
		f.s.As(t, theirs.APIKey, "POST", "/v1/mgmt/applications/"+app+"/licenses", map[string]any{"plan_id": op.PlanID}).Want(t, http.StatusCreated).JSON(t, &out)
		lid := out.Licenses[0]["id"].(string)
		f.s.As(t, f.key, "GET", "/v1/mgmt/applications/"+app+"/licenses/"+lid, nil).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "GET", "/licenses/"+lid, nil).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "PATCH", "/licenses/"+lid, map[string]any{"status": "revoked"}).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("Transitions", func(t *testing.T) {
		type step struct {
			to, want string // want: resulting status, or an error code
		}
		for name, steps := range map[string][]step{
			"suspend and reinstate never activated": {{"suspended", "suspended"}, {"active", "inactive"}},
			"suspend twice is a no-op":              {{"suspended", "suspended"}, {"suspended", "suspended"}},
			"revoked is final":                      {{"revoked", "revoked"}, {"active", "invalid_transition"}, {"suspended", "invalid_transition"}, {"banned", "invalid_transition"}},
			"banned is final":                       {{"banned", "banned"}, {"active", "invalid_transition"}, {"revoked", "invalid_transition"}},
			"suspended then revoked":                {{"suspended", "suspended"}, {"revoked", "revoked"}},
			"only suspended reinstates":             {{"active", "invalid_transition"}},
			"expired is derived, not set":           {{"expired", "validation_failed"}},
			"inactive is not settable":              {{"inactive", "validation_failed"}},
			"unknown":                               {{"paused", "validation_failed"}},
			"empty":                                 {{"", "validation_failed"}},
		} {
			t.Run(name, func(t *testing.T) {
				id := newLicense(t)
				for _, s := range steps {
					r := f.do(t, "PATCH", "/licenses/"+id, map[string]any{"status": s.to})
					switch s.want {
					case "invalid_transition":
						r.WantError(t, http.StatusConflict, s.want)
					case "validation_failed":
						r.WantError(t, http.StatusBadRequest, s.want)
					default:
						m := r.Want(t, http.StatusOK).Map(t)
						servertest.WantKeys(t, m, "id", "status")
						if m["id"] != id || m["status"] != s.want {
							t.Fatalf("PATCH %s = %v, want status %s", s.to, m, s.want)
						}
						if got := f.do(t, "GET", "/licenses/"+id, nil).Map(t)["status"]; got != s.want {
							t.Fatalf("detail status = %v, want %s", got, s.want)
						}
					}
				}
			})
		}
		id := newLicense(t)
		f.do(t, "PATCH", "/licenses/"+id, map[string]any{"status": 3}).WantError(t, http.StatusBadRequest, "validation_failed")
		f.do(t, "PATCH", "/licenses/"+id, "{").WantError(t, http.StatusBadRequest, "invalid_json")
	})

	t.Run("StatusRevokesSessions", func(t *testing.T) {
		for _, status := range []string{"suspended", "revoked", "banned"} {
			id := newLicense(t)
			dev := seedDevice(t, f, "production", "fp-"+status)
			sid, err := f.s.Store().SeedBinding(ctx, f.scope("production"), id, dev.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			f.do(t, "PATCH", "/licenses/"+id, map[string]any{"status": status}).Want(t, http.StatusOK)
			if reason, err := f.s.Store().SessionRevokeReason(ctx, sid); err != nil || reason != "status_change" {
				t.Fatalf("%s: session revoke reason = %q, %v", status, reason, err)
			}
		}
	})

	t.Run("ResetDevice", func(t *testing.T) {
		id := newLicense(t)
		keep, gone := seedDevice(t, f, "production", "fp-keep"), seedDevice(t, f, "production", "fp-gone")
		keepSID, _ := f.s.Store().SeedBinding(ctx, f.scope("production"), id, keep.ID, "")
		goneSID, err := f.s.Store().SeedBinding(ctx, f.scope("production"), id, gone.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		r := f.do(t, "POST", "/licenses/"+id+"/reset-device", map[string]any{"device_id": gone.ID}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, r, "success")
		if r["success"] != true {
			t.Fatalf("answer = %v", r)
		}
		d := f.do(t, "GET", "/licenses/"+id, nil).Map(t)
		devs := d["devices"].([]any)
		if len(devs) != 1 || devs[0].(map[string]any)["id"] != keep.ID {
			t.Fatalf("devices after reset = %v", devs)
		}
		if d["device_resets_remaining"] != 2.0 {
			t.Fatalf("device_resets_remaining = %v, want untouched 2", d["device_resets_remaining"])
		}
		if reason, _ := f.s.Store().SessionRevokeReason(ctx, goneSID); reason != "device_reset" {
			t.Fatalf("reset device's session reason = %q", reason)
		}
		if reason, _ := f.s.Store().SessionRevokeReason(ctx, keepSID); reason != "" {
			t.Fatalf("other device's session revoked: %q", reason)
		}
		devList := getPage(t, f, "/devices?per_page=100")
		for _, dv := range devList.Data {
			if dv["id"] == gone.ID && len(dv["license_ids"].([]any)) != 0 {
				t.Fatalf("device still lists the license: %v", dv)
			}
		}
		// Not bound (any more) → not_found.
		f.do(t, "POST", "/licenses/"+id+"/reset-device", map[string]any{"device_id": gone.ID}).WantError(t, http.StatusNotFound, "not_found")
		f.do(t, "POST", "/licenses/"+id+"/reset-device", map[string]any{"device_id": missingID}).WantError(t, http.StatusNotFound, "not_found")
		for _, body := range []any{map[string]any{}, map[string]any{"device_id": "nope"}, map[string]any{"device_id": 1}} {
			f.do(t, "POST", "/licenses/"+id+"/reset-device", body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})
}

func TestLicenseExpiry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plan := f.newPlan(t, map[string]any{"name": "Expiring"})
	exp := f.s.Clock().Now().Add(time.Hour)
	lic := generate(t, f, map[string]any{"plan_id": plan, "expires_at": exp.Format(time.RFC3339Nano)})[0]["id"].(string)
	generate(t, f, map[string]any{"plan_id": plan})
	suspended := generate(t, f, map[string]any{"plan_id": plan, "expires_at": exp.Format(time.RFC3339Nano)})[0]["id"].(string)
	f.do(t, "PATCH", "/licenses/"+suspended, map[string]any{"status": "suspended"}).Want(t, http.StatusOK)

	f.s.Clock().Advance(2 * time.Hour)
	if got := f.do(t, "GET", "/licenses/"+lic, nil).Map(t)["status"]; got != "expired" {
		t.Fatalf("detail status = %v, want expired", got)
	}
	if got := f.do(t, "GET", "/licenses/"+suspended, nil).Map(t)["status"]; got != "suspended" {
		t.Fatalf("suspended license status = %v", got)
	}
	p := getPage(t, f, "/licenses?status=inactive")
	for _, l := range p.Data {
		if l["id"] == lic && l["status"] != "expired" {
			t.Fatalf("item status = %v, want the effective expired", l["status"])
		}
	}
	f.do(t, "PATCH", "/licenses/"+lic, map[string]any{"status": "active"}).WantError(t, http.StatusConflict, "invalid_transition")

	n, err := f.s.Store().ExpireLicenses(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("ExpireLicenses = %d, %v; want 1", n, err)
	}
	if p := getPage(t, f, "/licenses?status=expired"); p.Total != 1 || p.Data[0]["id"] != lic {
		t.Fatalf("expired filter = %+v", p)
	}
	if p := getPage(t, f, "/licenses?status=inactive"); p.Total != 1 {
		t.Fatalf("inactive total = %d, want 1", p.Total)
	}
	// A second sweep has nothing to do; an expired license may still be revoked.
	if n, _ := f.s.Store().ExpireLicenses(context.Background()); n != 0 {
		t.Fatalf("second sweep = %d", n)
	}
	f.do(t, "PATCH", "/licenses/"+lic, map[string]any{"status": "revoked"}).Want(t, http.StatusOK)
	// The reinstated suspended license is past its expiry: it reads as expired.
	if m := f.do(t, "PATCH", "/licenses/"+suspended, map[string]any{"status": "active"}).Want(t, http.StatusOK).Map(t); m["status"] != "expired" {
		t.Fatalf("reinstated past expiry = %v", m)
	}
	audit := getPage(t, f, "/audit-logs?event=license.expired")
	if audit.Total != 1 || audit.Data[0]["actor"].(map[string]any)["type"] != store.ActorSystem {
		t.Fatalf("license.expired audit = %+v", audit)
	}
}

// TestExpirySweepAtStart checks the server's own sweeper: licenses that
// lapsed while it was down are stored as expired soon after it starts.
func TestExpirySweepAtStart(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	f := &fixture{s: s, org: org, key: org.APIKey, app: newApp(t, s, org.APIKey, "Sweep")}
	plan := f.newPlan(t, map[string]any{"name": "Short"})
	exp := s.Clock().Now().Add(time.Hour)
	generate(t, f, map[string]any{"plan_id": plan, "expires_at": exp.Format(time.RFC3339Nano), "quantity": 2})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The server comes back after the licenses lapsed: its clock starts
	// past their expiry, instead of the test sleeping until it.
	f.s = servertest.StartAt(t, s.Config, exp.Add(time.Minute))
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := getPage(t, f, "/licenses?status=expired")
		if p.Total == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("expired total = %d after start, want 2", p.Total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"licensectl/server/api"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/password"
)

// keyRE is a license key: five groups of five Crockford base32 characters.
var keyRE = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$`)

// wantKeys fails unless out is exactly n distinct license keys, one per line.
func wantKeys(t *testing.T, out string, n int) []string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("-o keys output does not end in a newline: %q", out[max(0, len(out)-40):])
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("-o keys printed %d lines, want %d", len(lines), n)
	}
	seen := map[string]bool{}
	for i, l := range lines {
		if !keyRE.MatchString(l) {
			t.Fatalf("line %d %q is not a license key", i+1, l)
		}
		if seen[l] {
			t.Fatalf("key %s printed twice", l)
		}
		seen[l] = true
	}
	return lines
}

// compact is raw JSON without insignificant space.
func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// seeder runs fn on the store while no CLI process holds it.
type seeder func(fn func(db servertest.Store))

// localSeeder opens the store of c's data directory.
func localSeeder(t *testing.T, c *cli) seeder {
	return func(fn func(db servertest.Store)) {
		db, err := servertest.OpenStore(filepath.Join(c.dir, "data"), servertest.StoreOptions{Hasher: password.NewHasher(password.Options{Params: &servertest.CheapHash})})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		fn(db)
	}
}

// licenseScenario runs the entitlement, plan, license, user, device and
// audit commands through c, acting in organization orgID.
func licenseScenario(t *testing.T, c *cli, orgID string, seed seeder) {
	ctx := context.Background()
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Studio", "--slug", "studio")

	// Entitlements.
	var ent api.EntitlementItem
	c.json(&ent, "entitlement", "create", "--app", "studio", "pro", "--name", "Pro features", "--description", "all of it")
	if ent.Key != "pro" || ent.Name != "Pro features" || ent.Description == nil || *ent.Description != "all of it" || ent.ID == "" {
		t.Fatalf("entitlement create = %+v", ent)
	}
	c.ok("entitlement", "create", "--app", "studio", "export.raw")
	c.ok("entitlement", "create", "--app", "studio", "gone")
	c.fails(1, args("entitlement", "create", "--app", "studio", "pro"), "Error: conflict: ")
	c.fails(1, args("entitlement", "create", "--app", "studio", "Not A Key"), "Error: validation_failed: ")
	c.ok("entitlement", "delete", "--app", "studio", "gone", "--yes")
	var ents []api.EntitlementItem
	c.json(&ents, "entitlement", "list", "--app", "studio")
	if len(ents) != 2 || ents[0].Key != "export.raw" || ents[1].Key != "pro" {
		t.Fatalf("entitlement list = %+v", ents)
	}

	// Plans, named by id or name.
	var pro api.PlanItem
	c.json(&pro, "plan", "create", "--app", "studio", "Pro", "--max-devices", "3", "--entitlement", "pro")
	if pro.MaxDevices != 3 || pro.DeviceResetLimit != store.DefaultDeviceResetLimit || len(pro.Entitlements) != 1 || pro.Entitlements[0].Key != "pro" || pro.DurationDays != nil {
		t.Fatalf("plan create = %+v", pro)
	}
	var trial api.PlanItem
	c.json(&trial, "plan", "create", "--app", "studio", "Trial", "--trial", "--duration-days", "14", "--policies", `{"grace":3}`)
	if !trial.IsTrial || trial.DurationDays == nil || *trial.DurationDays != 14 || compact(trial.Policies) != `{"grace":3}` {
		t.Fatalf("plan create Trial = %+v (policies %s)", trial, trial.Policies)
	}
	var upd api.PlanItem
	c.json(&upd, "plan", "update", "--app", "studio", "Pro", "--max-devices", "5", "--entitlement", "pro,export.raw")
	if upd.ID != pro.ID || upd.MaxDevices != 5 || len(upd.Entitlements) != 2 || upd.Name != "Pro" {
		t.Fatalf("plan update = %+v", upd)
	}
	c.json(&upd, "plan", "update", "--app", "studio", pro.ID, "--name", "Pro 2026")
	if upd.Name != "Pro 2026" || upd.MaxDevices != 5 || len(upd.Entitlements) != 2 {
		t.Fatalf("plan update --name = %+v", upd)
	}
	c.fails(2, args("plan", "update", "--app", "studio", "Pro 2026", "--policies", "[1]"), "--policies")
	c.fails(1, args("plan", "update", "--app", "studio", "Nope", "--max-devices", "2"), "Error: not_found: plan \"Nope\" not found")
	var plans []api.PlanItem
	c.json(&plans, "plan", "list", "--app", "studio")
	if len(plans) != 2 || plans[0].ID != trial.ID {
		t.Fatalf("plan list = %+v", plans)
	}
	if out := c.ok("plan", "list", "--app", "studio"); !strings.Contains(out, "Pro 2026") || !strings.Contains(out, "14") {
		t.Fatalf("plan list table:\n%s", out)
	}

	// Generation in every format.
	r := c.run("license", "generate", "--app", "studio", "--plan", "Pro 2026", "-n", "5", "-o", "keys")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("generate -o keys: exit %d, stderr %q", r.code, r.stderr)
	}
	keys := wantKeys(t, r.stdout, 5)

	out := c.ok("license", "generate", "--app", "studio", "--plan", pro.ID, "-n", "2", "-o", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 || strings.Join(rows[0], ",") != "id,key,status,plan_id,plan_name,expires_at,created_at" {
		t.Fatalf("generate -o csv: %v\n%s", err, out)
	}
	for _, row := range rows[1:] {
		if !keyRE.MatchString(row[1]) || row[2] != store.LicenseInactive || row[3] != pro.ID || row[4] != "Pro 2026" {
			t.Fatalf("csv row %v", row)
		}
	}

	var gen api.LicensesGenerated
	c.json(&gen, "license", "generate", "--app", "studio", "--plan", "Pro 2026", "--expires-at", "2030-01-02T03:04:05+02:00", "--entitlement", "export.raw")
	if len(gen.Licenses) != 1 || gen.Licenses[0].ExpiresAt == nil || gen.Licenses[0].ExpiresAt.UTC().Format("15:04") != "01:04" || gen.Licenses[0].Plan.ID != pro.ID {
		t.Fatalf("generate -o json = %+v", gen)
	}
	if out := c.ok("license", "generate", "--app", "studio", "--plan", "Trial"); !strings.HasPrefix(out, "ID ") || len(strings.Split(strings.TrimSpace(out), "\n")) != 2 {
		t.Fatalf("generate table:\n%s", out)
	}

	// Above store.MaxGenerate: several calls, progress on stderr only.
	r = c.run("license", "generate", "--app", "studio", "--plan", "Pro 2026", "-n", "1001", "-o", "keys")
	if r.code != 0 {
		t.Fatalf("generate -n 1001: exit %d: %s", r.code, r.stderr)
	}
	wantKeys(t, r.stdout, 1001)
	if !strings.Contains(r.stderr, "generated 1000/1001") || !strings.Contains(r.stderr, "generated 1001/1001") {
		t.Fatalf("progress on stderr: %q", r.stderr)
	}
	c.fails(1, args("license", "generate", "--app", "studio", "--plan", "Nope"), "Error: not_found: plan \"Nope\" not found")

	// Listing.
	var page struct {
		Data    []api.LicenseItem `json:"data"`
		Total   int               `json:"total"`
		Page    int               `json:"page"`
		PerPage int               `json:"per_page"`
	}
	c.json(&page, "license", "list", "--app", "studio", "--per-page", "3", "--page", "2")
	if page.Total != 1010 || len(page.Data) != 3 || page.Page != 2 || page.PerPage != 3 {
		t.Fatalf("license list page 2: total %d, %d items, page %d/%d", page.Total, len(page.Data), page.Page, page.PerPage)
	}
	c.json(&page, "license", "list", "--app", "studio", "--plan", "Trial", "--all")
	if page.Total != 1 || len(page.Data) != 1 || page.Data[0].Plan.ID != trial.ID {
		t.Fatalf("license list --plan Trial = %+v", page)
	}
	c.json(&page, "license", "list", "--app", "studio", "--all")
	if len(page.Data) != 1010 {
		t.Fatalf("license list --all: %d items, want 1010", len(page.Data))
	}
	first := page.Data[len(page.Data)-1] // oldest: the first -o keys batch
	if first.Key != keys[0] && first.Key != keys[4] {
		t.Fatalf("oldest license %s is not from the first batch %v", first.Key, keys)
	}
	table := c.ok("license", "list", "--app", "studio")
	if !strings.Contains(table, "(page 1, 20 of 1010;") {
		t.Fatalf("license list table footer:\n%s", table)
	}
	for _, line := range strings.Split(table, "\n") {
		if len([]rune(line)) > 80 {
			t.Fatalf("license list line longer than 80 columns: %q", line)
		}
	}
	c.json(&page, "license", "list", "--app", "studio", "--env", "development")
	if page.Total != 0 {
		t.Fatalf("development environment has %d licenses", page.Total)
	}
	// Out of range is a usage error, 0 included: it would read as "unset".
	c.fails(2, args("license", "list", "--app", "studio", "--per-page", "1000"), "--per-page must be 1-100")
	c.fails(2, args("license", "list", "--app", "studio", "--per-page", "0"), "--per-page must be 1-100")
	c.fails(2, args("license", "list", "--app", "studio", "--page", "0"), "--page must be at least 1")

	// A bound device and a user, seeded through the store.
	lic := gen.Licenses[0]
	var userID, deviceID string
	seed(func(db servertest.Store) {
		sc := store.Scope{OrgID: orgID, AppID: app.ID, Env: store.EnvProduction}
		u, err := db.RegisterEndUser(ctx, sc, "holder@example.com", "a fine password 1")
		if err != nil {
			t.Fatal(err)
		}
		d, err := db.EnsureDevice(ctx, sc, "fp-laptop")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SeedBinding(ctx, sc, lic.ID, d.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		userID, deviceID = u.ID, d.ID
	})

	var detail api.LicenseDetail
	c.json(&detail, "license", "show", "--app", "studio", lic.ID)
	if detail.ID != lic.ID || len(detail.Devices) != 1 || detail.Devices[0].ID != deviceID || len(detail.Entitlements) != 2 || detail.DeviceResetsRemaining != store.DefaultDeviceResetLimit {
		t.Fatalf("license show = %+v", detail)
	}
	if out := c.ok("license", "show", "--app", "studio", lic.ID); !strings.Contains(out, lic.Key) || !strings.Contains(out, "fp-laptop") {
		t.Fatalf("license show table:\n%s", out)
	}
	// Named the way a customer has it: the key read out, or their e-mail.
	readOut := strings.ToLower(strings.ReplaceAll(lic.Key, "-", " "))
	for _, ref := range []string{lic.Key, readOut, "Holder@Example.com"} {
		var d api.LicenseDetail
		c.json(&d, "license", "show", "--app", "studio", ref)
		if d.ID != lic.ID {
			t.Fatalf("license show %q = %s, want %s", ref, d.ID, lic.ID)
		}
	}
	c.fails(1, args("license", "show", "--app", "studio", "AAAAA-AAAAA-AAAAA-AAAAA-AAAAA"), `Error: not_found: no license with key "AAAAA-AAAAA-AAAAA-AAAAA-AAAAA" in production`)
	c.fails(1, args("license", "show", "--app", "studio", "nobody@example.com"), "Error: not_found: ")
	c.fails(1, args("license", "show", "--app", "studio", "what?"), "is neither a license id, a license key nor an e-mail")
	c.json(&page, "license", "list", "--app", "studio", "--user", "holder@example.com")
	if page.Total != 1 || page.Data[0].ID != lic.ID {
		t.Fatalf("license list --user = %+v", page)
	}
	rows, err = csv.NewReader(strings.NewReader(c.ok("license", "list", "--app", "studio", "--user", "holder@example.com", "-o", "csv"))).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][6] != "user_email" || rows[1][1] != lic.Key || rows[1][6] != "holder@example.com" {
		t.Fatalf("license list -o csv: %v %q", err, rows)
	}
	c.json(&page, "license", "list", "--app", "studio", "--key", readOut)
	if page.Total != 1 || page.Data[0].ID != lic.ID {
		t.Fatalf("license list --key = %+v", page)
	}

	var users struct {
		Data  []api.EndUserItem `json:"data"`
		Total int               `json:"total"`
	}
	c.json(&users, "user", "list", "--app", "studio")
	if users.Total != 1 || users.Data[0].ID != userID || users.Data[0].Email != "holder@example.com" {
		t.Fatalf("user list = %+v", users)
	}
	c.json(&users, "user", "list", "--app", "studio", "--email", "HOLDER@example.com")
	if users.Total != 1 || users.Data[0].ID != userID {
		t.Fatalf("user list --email = %+v", users)
	}
	var st api.StatusChanged
	c.json(&st, "user", "set-status", "--app", "studio", "holder@example.com", "banned")
	if st.ID != userID || st.Status != store.UserBanned {
		t.Fatalf("user set-status = %+v", st)
	}
	c.json(&users, "user", "list", "--app", "studio", "--status", "banned")
	if users.Total != 1 {
		t.Fatalf("banned users: %d", users.Total)
	}
	c.fails(1, args("user", "set-status", "--app", "studio", userID, "sleepy"), "Error: validation_failed: ")
	var roles api.EndUserRoles
	c.json(&roles, "user", "add-role", userID, "beta-tester")
	if roles.UserID != userID || len(roles.Roles) != 1 || roles.Roles[0] != "beta-tester" || !roles.Success {
		t.Fatalf("user add-role = %+v", roles)
	}
	c.fails(1, args("user", "add-role", store.NewID(), "beta"), "Error: not_found: ")
	c.json(&roles, "user", "add-role", "--app", "studio", "holder@example.com", "support")
	if roles.UserID != userID || len(roles.Roles) != 2 {
		t.Fatalf("user add-role by e-mail = %+v", roles)
	}
	c.fails(2, args("user", "add-role", "holder@example.com", "support"), "a user named by e-mail needs --app")
	c.json(&roles, "user", "remove-role", "--app", "studio", "holder@example.com", "beta-tester")
	if roles.UserID != userID || len(roles.Roles) != 1 || roles.Roles[0] != "support" {
		t.Fatalf("user remove-role = %+v", roles)
	}
	c.json(&roles, "user", "remove-role", userID, "beta-tester")
	if len(roles.Roles) != 1 {
		t.Fatalf("user remove-role of a role it lacks = %+v, want nothing changed", roles)
	}
	c.fails(1, args("user", "remove-role", store.NewID(), "beta"), "Error: not_found: ")
	c.fails(1, args("user", "set-status", "--app", "studio", "nobody@example.com", "active"), `Error: not_found: no user with e-mail "nobody@example.com" in production`)

	var devices struct {
		Data  []api.DeviceItem `json:"data"`
		Total int              `json:"total"`
	}
	c.json(&devices, "device", "list", "--app", "studio")
	if devices.Total != 1 || devices.Data[0].ID != deviceID || len(devices.Data[0].LicenseIDs) != 1 {
		t.Fatalf("device list = %+v", devices)
	}
	if out := c.ok("device", "list", "--app", "studio"); !regexp.MustCompile(`(?m)^` + deviceID + ` +active +1 +(-|\d{4}-\d\d-\d\d) +fp-laptop$`).MatchString(out) {
		t.Fatalf("device list table, want the device active on 1 license:\n%s", out)
	}
	c.json(&st, "device", "set-status", "--app", "studio", "fp-laptop", "blocked")
	if st.ID != deviceID || st.Status != store.DeviceBlocked {
		t.Fatalf("device set-status = %+v", st)
	}
	c.json(&devices, "device", "list", "--app", "studio", "--fingerprint", "fp-laptop", "--status", "blocked")
	if devices.Total != 1 || devices.Data[0].ID != deviceID {
		t.Fatalf("device list --fingerprint = %+v", devices)
	}
	c.fails(1, args("device", "set-status", "--app", "studio", "fp-desktop", "active"), `Error: not_found: no device with fingerprint "fp-desktop" in production`)

	c.ok("license", "reset-device", "--app", "studio", readOut, "fp-laptop")
	c.json(&detail, "license", "show", "--app", "studio", lic.ID)
	if len(detail.Devices) != 0 || detail.DeviceResetsRemaining != store.DefaultDeviceResetLimit {
		t.Fatalf("after reset-device: %+v", detail)
	}
	c.fails(1, args("license", "reset-device", "--app", "studio", lic.ID, deviceID), "Error: not_found: ")

	// Status changes; revoked is final.
	c.json(&st, "license", "set-status", "--app", "studio", lic.ID, "suspended")
	if st.Status != store.LicenseSuspended {
		t.Fatalf("license set-status suspended = %+v", st)
	}
	c.ok("license", "set-status", "--app", "studio", lic.ID, "revoked", "--yes")
	c.fails(1, args("license", "set-status", "--app", "studio", lic.ID, "active"), "Error: invalid_transition: ")
	c.fails(1, args("license", "show", "--app", "studio", store.NewID()), "Error: not_found: ")

	// Plans in use cannot go; unused ones can.
	c.fails(1, args("plan", "delete", "--app", "studio", "Pro 2026", "--yes"), "Error: plan_in_use: ")
	c.ok("plan", "create", "--app", "studio", "Unused")
	c.ok("plan", "delete", "--app", "studio", "Unused", "--yes")

	// The audit log saw it all.
	var audit struct {
		Data  []api.AuditEntry `json:"data"`
		Total int              `json:"total"`
	}
	c.json(&audit, "audit", "list", "--app", "studio", "--event", "license.revoked")
	if audit.Total != 1 || audit.Data[0].Target.ID != lic.ID {
		t.Fatalf("audit list --event license.revoked = %+v", audit)
	}
	c.json(&audit, "audit", "list", "--app", "studio", "--from", "2000-01-01T00:00:00Z", "--to", "2000-01-02T00:00:00Z")
	if audit.Total != 0 {
		t.Fatalf("audit entries in 2000: %d", audit.Total)
	}
	if out := c.ok("audit", "list", "--app", "studio"); !strings.Contains(out, "license.revoked") {
		t.Fatalf("audit list table:\n%s", out)
	}
	c.fails(2, args("audit", "list", "--app", "studio", "--from", "yesterday"), "--from")
}

// cliScenario runs through a CLI acting in organization orgID, seeding
// through seed.
type cliScenario func(t *testing.T, c *cli, orgID string, seed seeder)

// runLocal runs scenario in local mode on a new data directory, on the
// store the tests run on.
func runLocal(t *testing.T, scenario cliScenario) {
	t.Parallel() // a data directory of its own
	c := newLocalStore(t)
	var org api.AdminOrganization
	c.json(&org, "org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	scenario(t, c, org.ID, localSeeder(t, c))
}

// runRemote runs scenario through a new server.
func runRemote(t *testing.T, scenario cliScenario) {
	t.Parallel() // a server of its own
	srv := servertest.New(t)
	org := srv.NewOrg(t)
	seed := func(fn func(db servertest.Store)) { fn(srv.Store()) }
	scenario(t, newRemote(t, srv.URL, org.APIKey), org.ID, seed)
}

func TestLocalLicenses(t *testing.T)  { runLocal(t, licenseScenario) }
func TestRemoteLicenses(t *testing.T) { runRemote(t, licenseScenario) }

// licenseDevicesScenario: a license with more devices than its detail
// carries shows their count, the newest page and where the rest is;
// `device list --license` pages them all.
func licenseDevicesScenario(t *testing.T, c *cli, orgID string, seed seeder) {
	ctx := context.Background()
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Site", "--slug", "site")
	c.ok("plan", "create", "--app", "site", "Site", "--max-devices", "1000")
	var gen api.LicensesGenerated
	c.json(&gen, "license", "generate", "--app", "site", "--plan", "Site", "-o", "json")
	wide := gen.Licenses[0]
	const n = store.LicenseDetailDevices + 2
	seed(func(db servertest.Store) {
		sc := store.Scope{OrgID: orgID, AppID: app.ID, Env: store.EnvProduction}
		for i := range n {
			d, err := db.EnsureDevice(ctx, sc, fmt.Sprintf("fp-site-%02d", i))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.SeedBinding(ctx, sc, wide.ID, d.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
	})
	var d api.LicenseDetail
	c.json(&d, "license", "show", "--app", "site", wide.Key)
	if d.DevicesCount != n || len(d.Devices) != store.LicenseDetailDevices || d.Devices[0].Fingerprint != fmt.Sprintf("fp-site-%02d", n-1) {
		t.Fatalf("license show: devices_count %d, %d devices", d.DevicesCount, len(d.Devices))
	}
	out := c.ok("license", "show", "--app", "site", wide.Key)
	if !strings.Contains(out, "Devices:") || !strings.Contains(out, "2 more: licensectl device list --app APP --license "+wide.ID+" --page 2") {
		t.Fatalf("license show table:\n%s", out)
	}
	var page api.Page[api.DeviceItem]
	c.json(&page, "device", "list", "--app", "site", "--license", wide.Key, "--page", "2")
	if page.Total != n || len(page.Data) != 2 || page.Data[1].Fingerprint != "fp-site-00" {
		t.Fatalf("device list --license --page 2 = %+v", page)
	}
	c.json(&page, "device", "list", "--app", "site", "--license", wide.ID, "--all")
	if len(page.Data) != n {
		t.Fatalf("device list --license --all: %d devices, want %d", len(page.Data), n)
	}
	c.fails(1, args("device", "list", "--app", "site", "--license", wide.ID, "--fingerprint", "fp-site-01"), "Error: validation_failed: ")
}

func TestLocalLicenseDevices(t *testing.T)  { runLocal(t, licenseDevicesScenario) }
func TestRemoteLicenseDevices(t *testing.T) { runRemote(t, licenseDevicesScenario) }

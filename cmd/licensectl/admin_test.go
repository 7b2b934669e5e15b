package main

import (
	"context"
	"licensectl/server/api"
	"path/filepath"
	"strings"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/bolt"
)

// appScenario runs the application, secret and API key commands through c,
// which must already act in one organization, and checks their JSON output.
func appScenario(t *testing.T, c *cli) {
	var created api.ApplicationDetail
	c.json(&created, "app", "create", "Photo Studio")
	if created.ID == "" || created.Slug != "photo-studio" || created.Status != store.AppActive || len(created.Environments) != 2 {
		t.Fatalf("app create = %+v", created)
	}
	var other api.ApplicationDetail
	c.json(&other, "app", "create", "Sound Lab", "--slug", "lab")

	var list []api.ApplicationItem
	c.json(&list, "app", "list")
	if len(list) != 2 || list[0].ID != other.ID || list[1].ID != created.ID {
		t.Fatalf("app list = %+v, want Sound Lab then Photo Studio", list)
	}
	table := c.ok("app", "list")
	if !strings.HasPrefix(table, "ID ") || !strings.Contains(table, "photo-studio") || !strings.Contains(table, "lab") {
		t.Fatalf("app list table:\n%s", table)
	}
	for _, line := range strings.Split(table, "\n") {
		if len([]rune(line)) > 80 {
			t.Fatalf("app list line longer than 80 columns: %q", line)
		}
	}

	// Named by id, slug and name alike.
	for _, name := range []string{created.ID, "photo-studio", "Photo Studio"} {
		var got api.ApplicationDetail
		c.json(&got, "app", "show", name)
		if got.ID != created.ID {
			t.Fatalf("app show %q = %s, want %s", name, got.ID, created.ID)
		}
	}

	var upd api.ApplicationDetail
	c.json(&upd, "app", "update", "lab", "--name", "Sound Lab Pro")
	if upd.Name != "Sound Lab Pro" || upd.Slug != "lab" {
		t.Fatalf("app update = %+v", upd)
	}
	c.json(&upd, "app", "disable", "lab")
	if upd.Status != store.AppDisabled {
		t.Fatalf("app disable: status %q", upd.Status)
	}
	c.json(&upd, "app", "update", "lab", "--status", "active")
	if upd.Status != store.AppActive {
		t.Fatalf("app update --status active: status %q", upd.Status)
	}
	c.fails(2, args("app", "delete", "lab"), "--yes")
	c.ok("app", "delete", "lab", "--yes")
	c.fails(1, args("app", "show", "lab"), "Error: not_found: ")
	c.fails(1, args("app", "show", other.ID), "Error: not_found: application not found")

	// Secrets, in both environments.
	var sec struct {
		SecretID      string `json:"secret_id"`
		Plaintext     string `json:"plaintext"`
		Environment   string `json:"environment"`
		EnvironmentID string `json:"environment_id"`
	}
	c.json(&sec, "secret", "create", "--app", "photo-studio", "--label", "ci")
	if !strings.HasPrefix(sec.Plaintext, store.PrefixSecretLive) || sec.Environment != store.EnvProduction || sec.SecretID == "" {
		t.Fatalf("secret create = %+v", sec)
	}
	var devSec = sec
	c.json(&devSec, "secret", "create", "--app", "photo-studio", "--env", "development")
	if !strings.HasPrefix(devSec.Plaintext, store.PrefixSecretTest) || devSec.Environment != store.EnvDevelopment {
		t.Fatalf("secret create --env development = %+v", devSec)
	}
	c.ok("secret", "revoke", "--app", "photo-studio", sec.SecretID)
	var secrets []map[string]any
	c.json(&secrets, "secret", "list", "--app", "Photo Studio")
	if len(secrets) != 2 {
		t.Fatalf("secret list has %d items, want 2", len(secrets))
	}
	for _, s := range secrets {
		if _, ok := s["plaintext"]; ok {
			t.Fatalf("secret list shows a plaintext: %v", s)
		}
		revoked := s["revoked_at"] != nil
		if revoked != (s["id"] == sec.SecretID) {
			t.Fatalf("secret %v: revoked_at %v", s["id"], s["revoked_at"])
		}
	}
	if out := c.ok("secret", "list", "--app", "photo-studio"); !strings.Contains(out, "revoked") || !strings.Contains(out, "development") {
		t.Fatalf("secret list table:\n%s", out)
	}
	c.fails(1, args("secret", "revoke", "--app", "photo-studio", store.NewID()), "Error: not_found: ")

	// API keys.
	var key struct {
		KeyID     string `json:"key_id"`
		Plaintext string `json:"plaintext"`
		Label     string `json:"label"`
	}
	c.json(&key, "apikey", "create", "--label", "deploy")
	if !strings.HasPrefix(key.Plaintext, store.PrefixAPIKey) || key.Label != "deploy" {
		t.Fatalf("apikey create = %+v", key)
	}
	c.ok("apikey", "revoke", key.KeyID)
	var keys []api.APIKeyItem
	c.json(&keys, "apikey", "list")
	found := false
	for _, k := range keys {
		if k.ID == key.KeyID {
			found = k.RevokedAt != nil && k.Label == "deploy"
		}
	}
	if !found {
		t.Fatalf("apikey list = %+v, want %s revoked", keys, key.KeyID)
	}
}

func TestLocalAdmin(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.fails(1, args("app", "list"), "no database at", "org create")

	var org api.AdminOrganization
	c.json(&org, "org", "create", "Acme Software", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	if org.Slug != "acme-software" || !org.EmailVerified {
		t.Fatalf("org create = %+v", org)
	}
	appScenario(t, c)

	var shown api.AdminOrganization
	c.json(&shown, "org", "show")
	if shown.ID != org.ID {
		t.Fatalf("org show = %+v", shown)
	}

	// With a second organization, --org becomes necessary.
	var second api.AdminOrganization
	c.json(&second, "org", "create", "Acme Software")
	if second.Slug != "acme-software-2" {
		t.Fatalf("second org slug = %q", second.Slug)
	}
	c.fails(2, args("app", "list"), "--org")
	var apps []api.ApplicationItem
	c.json(&apps, "--org", "acme-software-2", "app", "list")
	if len(apps) != 0 {
		t.Fatalf("second org has %d apps", len(apps))
	}
	c.json(&apps, "--org", org.ID, "app", "list")
	if len(apps) != 1 {
		t.Fatalf("first org has %d apps, want 1", len(apps))
	}
	// org list -o json has the envelope of every growing list.
	var orgs api.Page[api.AdminOrganization]
	c.json(&orgs, "org", "list")
	if len(orgs.Data) != 2 || orgs.Data[0].ID != second.ID || orgs.Total != 2 || orgs.Page != 1 {
		t.Fatalf("org list = %+v", orgs)
	}
	c.fails(1, args("--org", "nope", "app", "list"), "Error: not_found: organization \"nope\" not found")
}

func TestRemoteAdmin(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	org := srv.NewOrg(t)

	t.Run("APIKey", func(t *testing.T) {
		c := newRemote(t, srv.URL, org.APIKey)
		appScenario(t, c)
		var o api.AdminOrganization
		c.json(&o, "org", "show")
		if o.ID != org.ID || o.Slug == "" {
			t.Fatalf("org show = %+v", o)
		}
		c.fails(1, args("org", "show", store.NewID()), "Error: validation_failed: ", "not the organization of this API key")
		c.fails(1, args("--org", "someone-else", "app", "list"), "Error: validation_failed: ", "not the organization of this API key")
		var apps []api.ApplicationItem
		c.json(&apps, "--org", o.Slug, "app", "list")
		if len(apps) != 1 {
			t.Fatalf("--org %s app list: %d apps, want 1", o.Slug, len(apps))
		}
		c.fails(1, args("org", "list"), "Error: forbidden: ")
	})

	t.Run("Operator", func(t *testing.T) {
		op := newRemote(t, srv.URL, srv.OperatorToken())
		var created api.AdminOrganization
		op.json(&created, "org", "create", "Remote Corp", "--owner-email", "boss@remote.test", "--owner-password-file", passwordFile(t))
		if created.Slug != "remote-corp" || !created.EmailVerified {
			t.Fatalf("org create = %+v", created)
		}
		var orgs api.Page[api.AdminOrganization]
		op.json(&orgs, "org", "list")
		if len(orgs.Data) < 2 || orgs.Data[0].ID != created.ID || orgs.Total != len(orgs.Data) {
			t.Fatalf("org list = %+v", orgs)
		}
		var shown api.AdminOrganization
		op.json(&shown, "org", "show", "remote-corp")
		if shown.ID != created.ID {
			t.Fatalf("org show remote-corp = %+v", shown)
		}
		op.fails(2, args("app", "list"), "Error: validation_failed: ", "x-organization-id", "Hint: ", "--org")
		appScenario(t, op.with("--org", "remote-corp"))
		// The operator acts in the named organization only.
		var apps []api.ApplicationItem
		op.json(&apps, "--org", created.ID, "app", "list")
		if len(apps) != 1 {
			t.Fatalf("remote-corp has %d apps, want 1", len(apps))
		}
	})

	t.Run("Errors", func(t *testing.T) {
		newRemote(t, srv.URL, "dev_key_unknown").fails(1, args("app", "list"), "Error: unauthenticated: ")
		newRemote(t, "http://127.0.0.1:1", org.APIKey).fails(1, args("app", "list"), "Error: unavailable: cannot reach the server")
		c := &cli{t: t, dir: t.TempDir(), args: []string{"--server", srv.URL}}
		c.fails(2, args("app", "list"), "--api-key")
		c.env = []string{"LICENSECTL_API_KEY=" + org.APIKey}
		c.ok("app", "list")
	})

	t.Run("Env", func(t *testing.T) {
		c := &cli{t: t, dir: t.TempDir(), env: []string{"LICENSECTL_SERVER=" + srv.URL, "LICENSECTL_API_KEY=" + org.APIKey}}
		var apps []api.ApplicationItem
		c.json(&apps, "app", "list")
		if len(apps) != 1 {
			t.Fatalf("app list through LICENSECTL_SERVER: %d apps, want 1", len(apps))
		}
	})
}

func TestLockedFile(t *testing.T) {
	// Not parallel: it bounds how long the refusal takes, which other tests' load would stretch.
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	db, err := bolt.Open(filepath.Join(c.dir, "data", "licensectl.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := c.fails(1, args("app", "list"), "locked", "--server")
	if r.took > 5e9 {
		t.Fatalf("locked file reported after %v, want about 2 s", r.took)
	}
	db.Close()
	c.ok("app", "list")
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	for _, a := range [][]string{
		{"app", "list", "--bogus"},
		{"app", "bogus"},
		{"app"},
		{"bogus"},
		{"app", "show"},
		{"app", "show", "a", "b"},
		{"app", "list", "-o", "yaml"},
		{"app", "list", "-o", "keys"},
		{"secret", "list"},
		{"license", "generate", "--app", "x"},
		{"license", "generate", "--app", "x", "--plan", "y", "-n", "0"},
		{"app", "list", "--env", "staging"},
		{"app", "update", "x"},
	} {
		t.Run(strings.Join(a, "_"), func(t *testing.T) {
			c.fails(2, a, "Error: ", "Usage:")
		})
	}
}

func TestVersionAndConfig(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	var v versionInfo
	c.json(&v, "version")
	if v.Version == "" || !strings.HasPrefix(v.Go, "go") {
		t.Fatalf("version = %+v", v)
	}
	if out := c.ok("version"); !strings.HasPrefix(out, "licensectl ") {
		t.Fatalf("version: %q", out)
	}
	c.env = []string{"LICENSECTL_ADMIN_OPERATOR_TOKEN=op_secret_value", "LICENSECTL_SERVER_LISTEN=0.0.0.0:9999",
		"LICENSECTL_STORAGE_POSTGRES_URL=postgres://lc:db_password_value@db.internal/lc"}
	var cfg struct {
		Mode   string         `json:"mode"`
		Config map[string]any `json:"config"`
	}
	c.json(&cfg, "config", "show")
	srvCfg, _ := cfg.Config["server"].(map[string]any)
	adm, _ := cfg.Config["admin"].(map[string]any)
	pg, _ := cfg.Config["storage"].(map[string]any)["postgres"].(map[string]any)
	if cfg.Mode != "local" || srvCfg["listen"] != "0.0.0.0:9999" || adm["operator_token"] != "********" || pg["url"] != "********" {
		t.Fatalf("config show = %+v", cfg)
	}
	if out := c.ok("config", "show"); strings.Contains(out, "op_secret_value") || strings.Contains(out, "db_password_value") ||
		!strings.Contains(out, "server.listen") || !strings.Contains(out, "storage.driver") {
		t.Fatalf("config show table:\n%s", out)
	}
	if out := c.ok("completion", "bash"); !strings.Contains(out, "licensectl") {
		t.Fatal("completion bash printed no script")
	}
}

// openBackup opens a backup file read-only, checks bbolt's integrity and
// returns the store on it.
func openBackup(t *testing.T, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open backup: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Check(); err != nil {
		t.Fatalf("backup integrity: %v", err)
	}
	if err := db.Ping(context.Background()); err != nil {
		t.Fatalf("backup ping: %v", err)
	}
	return db
}

func TestCompletion(t *testing.T) {
	// Not parallel: it bounds how long completion takes on a locked file, which other tests' load would stretch.
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	c.ok("app", "create", "Photo Studio")
	c.ok("plan", "create", "--app", "photo-studio", "Pro")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "app", "show", ""}, "photo-studio\tPhoto Studio\n"},
		{[]string{"__complete", "license", "generate", "--app", "photo-studio", "--plan", ""}, "Pro\n"},
		{[]string{"__complete", "secret", "list", "--app", ""}, "photo-studio\tPhoto Studio\n"},
		{[]string{"__complete", "license", "generate", "-o", ""}, "keys\n"},
		{[]string{"__complete", "app", "list", "--env", ""}, "development\n"},
		{[]string{"__complete", "org", "list", "--org", ""}, "acme\n"},
	} {
		if out := c.ok(tc.args...); !strings.Contains(out, tc.want) {
			t.Errorf("licensectl %s:\n%s\nwant a line %q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
	// A locked file completes nothing, quickly.
	db, err := bolt.Open(filepath.Join(c.dir, "data", "licensectl.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := c.run("__complete", "app", "show", "")
	if r.code != 0 || strings.Contains(r.stdout, "photo-studio") || r.took > 2e9 {
		t.Fatalf("completion on a locked file: exit %d in %v:\n%s", r.code, r.took, r.stdout)
	}
}

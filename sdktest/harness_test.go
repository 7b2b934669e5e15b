package sdktest

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"licensectl.dev/sdk/go"

	"licensectl/config"
	"licensectl/server/servertest"
	"licensectl/store/postgres/pgtest"
)

// TestMain runs a child process's part when the refresh race asks for
// one, and otherwise the tests (stopping the throw-away PostgreSQL cluster
// a test may start).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	pgtest.Main(m)
}

// vendor is an application set up through the management API, as a vendor
// would: a plan, a license and the environment's key set.
type vendor struct {
	s      *servertest.Server
	org    *servertest.Org
	appID  string
	pub    string // production app_pub_…
	devPub string // development app_pub_…
	jwks   []byte // production key set, as served
	planID string
}

type planSpec map[string]any

func newVendor(t testing.TB, mods ...func(*config.Config)) *vendor {
	t.Helper()
	s := servertest.New(t, mods...)
	v := &vendor{s: s, org: s.NewOrg(t)}
	v.appID = v.mgmt(t, http.MethodPost, "/v1/mgmt/applications", map[string]any{"name": "Photo Editor"}, http.StatusCreated)["application_id"].(string)
	for _, e := range v.mgmt(t, http.MethodGet, "/v1/mgmt/applications/"+v.appID, nil, http.StatusOK)["environments"].([]any) {
		env := e.(map[string]any)
		switch env["name"] {
		case "production":
			v.pub = env["public_key"].(string)
		case "development":
			v.devPub = env["public_key"].(string)
		}
	}
	v.jwks = v.rawJWKS(t, "production")
	return v
}

func (v *vendor) mgmt(t testing.TB, method, path string, body any, want int) map[string]any {
	t.Helper()
	return v.s.As(t, v.org.APIKey, method, path, body).Want(t, want).Map(t)
}

func (v *vendor) rawJWKS(t testing.TB, env string) []byte {
	t.Helper()
	resp, err := http.Get(v.s.URL + "/v1/runtime/applications/" + v.appID + "/jwks.json?environment=" + env)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("jwks: %d %v", resp.StatusCode, err)
	}
	return raw
}

// license issues one license of a new plan with spec's fields and the
// entitlement export.pdf; it returns the key and the license id.
func (v *vendor) license(t testing.TB, spec planSpec) (key, id string) {
	t.Helper()
	entID := v.mgmt(t, http.MethodPost, "/v1/mgmt/applications/"+v.appID+"/entitlements", map[string]any{"key": "export.pdf", "name": "Export to PDF"}, http.StatusCreated)["entitlement_id"].(string)
	plan := map[string]any{"name": "Pro", "max_devices": 3, "entitlement_ids": []string{entID}}
	for k, x := range spec {
		plan[k] = x
	}
	v.planID = v.mgmt(t, http.MethodPost, "/v1/mgmt/applications/"+v.appID+"/plans", plan, http.StatusCreated)["plan_id"].(string)
	gen := v.mgmt(t, http.MethodPost, "/v1/mgmt/applications/"+v.appID+"/licenses", map[string]any{"plan_id": v.planID, "quantity": 1}, http.StatusCreated)
	l := gen["licenses"].([]any)[0].(map[string]any)
	return l["key"].(string), l["id"].(string)
}

// client is a library client of v's production environment at baseURL
// (the server's, or a proxy's) with its own state directory unless dir is
// given.
func (v *vendor) client(t testing.TB, baseURL, dir string, now func() time.Time) *licensing.Client {
	t.Helper()
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "state")
	}
	c, err := licensing.New(licensing.Config{BaseURL: baseURL, PublicKey: v.pub, JWKS: v.jwks, StateDir: dir, Now: now,
		HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// snapshot is every file of a state directory and its content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

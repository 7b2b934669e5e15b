package server_test

import (
	"net/http"
	"testing"

	"licensectl/config"
	"licensectl/store"
)

// appSecret creates a secret of the fixture's application in env.
func (f *rtFix) appSecret(t *testing.T, env string) string {
	t.Helper()
	envID := ""
	for _, e := range f.mgmt(t, "GET", "/environments", nil).List(t) {
		if e["name"] == env {
			envID = e["id"].(string)
		}
	}
	var sec struct {
		Plaintext string `json:"plaintext"`
	}
	f.mgmt(t, "POST", "/secrets", map[string]any{"environment_id": envID, "label": "ci"}).Want(t, http.StatusCreated).JSON(t, &sec)
	return sec.Plaintext
}

// TestEndUserRolesWithAppSecret: the end-user role route holds an
// application secret to its environment and to the per-credential limit,
// like every other management route.
func TestEndUserRolesWithAppSecret(t *testing.T) {
	f := newRT(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Account = 1000, 1000, 1000
		c.RateLimit.Management = 6 // the API key makes 4 calls to set up
	})
	prod := f.appSecret(t, store.EnvProduction)
	devUser := f.s.Do(t, "POST", "/v1/runtime/auth/register", map[string]any{"email": "dev@example.com", "password": "correct horse battery staple 42"},
		"x-api-key", f.devPub).Want(t, http.StatusCreated).Map(t)["user_id"].(string)
	prodUser := f.register(t, "prod@example.com")

	t.Run("ErrNotFound", func(t *testing.T) {
		f.s.As(t, prod, "POST", "/v1/mgmt/auth/users/"+devUser+"/roles", map[string]any{"role_id": "admin"}).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("ErrRateLimited", func(t *testing.T) {
		for range 6 { // the secret's six calls of the window (refusals are not counted)
			f.s.As(t, prod, "POST", "/v1/mgmt/auth/users/"+prodUser+"/roles", map[string]any{"role_id": "admin"}).Want(t, http.StatusOK)
		}
		f.s.As(t, prod, "DELETE", "/v1/mgmt/auth/users/"+prodUser+"/roles/admin", nil).WantError(t, http.StatusTooManyRequests, "rate_limited")
	})
}

// TestAppSecretSiblingForbidden (design §4): a secret used on another
// application of its organization is 403 forbidden; an application of
// another organization, or none, stays 404.
func TestAppSecretSiblingForbidden(t *testing.T) {
	f := newRT(t)
	sec := f.appSecret(t, store.EnvProduction)
	sibling := newApp(t, f.s, f.org.APIKey, "Sibling")
	foreign := newApp(t, f.s, f.s.NewOrg(t).APIKey, "Foreign")

	t.Run("ErrForbidden", func(t *testing.T) {
		f.s.As(t, sec, "GET", "/v1/mgmt/applications/"+sibling, nil).WantError(t, http.StatusForbidden, "forbidden")
		f.s.As(t, sec, "GET", "/v1/mgmt/applications/"+sibling+"/licenses", nil).WantError(t, http.StatusForbidden, "forbidden")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.s.As(t, sec, "GET", "/v1/mgmt/applications/"+foreign, nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, sec, "GET", "/v1/mgmt/applications/0190aaaa-0000-7000-8000-000000000000/licenses", nil).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("OK", func(t *testing.T) {
		f.s.As(t, sec, "GET", "/v1/mgmt/applications/"+f.appID, nil).Want(t, http.StatusOK)
	})
}

package server_test

import (
	"net/http"
	"strings"
	"testing"

	"licensectl/server/api"
	"licensectl/server/servertest"
	"licensectl/store"
)

// newApp creates an application through the API and returns its id.
func newApp(t *testing.T, s *servertest.Server, key, name string) string {
	t.Helper()
	var out struct {
		ApplicationID string `json:"application_id"`
	}
	s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": name}).Want(t, http.StatusCreated).JSON(t, &out)
	if out.ApplicationID == "" {
		t.Fatal("no application_id")
	}
	return out.ApplicationID
}

func TestApplications(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	key := org.APIKey

	t.Run("OK", func(t *testing.T) {
		r := s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Photo Editor", "slug": "photo-editor"}).Want(t, http.StatusCreated)
		created := r.Map(t)
		servertest.WantKeys(t, created, "application_id")
		id := created["application_id"].(string)

		list := s.As(t, key, "GET", "/v1/mgmt/applications", nil).Want(t, http.StatusOK).List(t)
		if len(list) != 1 {
			t.Fatalf("list has %d items, want 1", len(list))
		}
		servertest.WantKeys(t, list[0], "id", "name", "slug", "status", "support_email", "created_at", "updated_at")
		if list[0]["slug"] != "photo-editor" || list[0]["status"] != "active" {
			t.Fatalf("item = %v", list[0])
		}
		servertest.WantTime(t, "created_at", list[0]["created_at"])

		d := s.As(t, key, "GET", "/v1/mgmt/applications/"+id, nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, d, "id", "name", "slug", "status", "support_email", "environments", "created_at", "updated_at")
		envs := d["environments"].([]any)
		if len(envs) != 2 {
			t.Fatalf("environments = %v", envs)
		}
		names := map[string]string{}
		for _, e := range envs {
			m := e.(map[string]any)
			servertest.WantKeys(t, m, "id", "name", "public_key", "created_at")
			names[m["name"].(string)] = m["public_key"].(string)
		}
		if !strings.HasPrefix(names["production"], "app_pub_live_") || !strings.HasPrefix(names["development"], "app_pub_test_") {
			t.Fatalf("public keys = %v", names)
		}

		el := s.As(t, key, "GET", "/v1/mgmt/applications/"+id+"/environments", nil).Want(t, http.StatusOK).List(t)
		if len(el) != 2 {
			t.Fatalf("environments list = %v", el)
		}
		for _, e := range el {
			servertest.WantKeys(t, e, "id", "name", "created_at")
		}

		u := s.As(t, key, "PATCH", "/v1/mgmt/applications/"+id, map[string]any{"name": "Photo Editor Pro"}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, u, "id", "name", "slug", "status", "support_email", "updated_at")
		if u["name"] != "Photo Editor Pro" || u["slug"] != "photo-editor" {
			t.Fatalf("updated = %v", u)
		}
	})

	t.Run("OKSupportEmail", func(t *testing.T) {
		var out struct {
			ApplicationID string `json:"application_id"`
		}
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Helped", "support_email": "Help@Vendor.Example"}).
			Want(t, http.StatusCreated).JSON(t, &out)
		path := "/v1/mgmt/applications/" + out.ApplicationID
		supportOf := func() any { return s.As(t, key, "GET", path, nil).Want(t, http.StatusOK).Map(t)["support_email"] }
		if got := supportOf(); got != "help@vendor.example" {
			t.Fatalf("support_email after create = %v", got)
		}
		up := s.As(t, key, "PATCH", path, map[string]any{"support_email": "desk@vendor.example"}).Want(t, http.StatusOK).Map(t)
		if up["support_email"] != "desk@vendor.example" {
			t.Fatalf("PATCH answer = %v", up)
		}
		// A bad address is refused and changes nothing.
		s.As(t, key, "PATCH", path, map[string]any{"support_email": "desk@"}).WantError(t, http.StatusBadRequest, "validation_failed")
		if got := supportOf(); got != "desk@vendor.example" {
			t.Fatalf("support_email after a refused PATCH = %v", got)
		}
		s.As(t, key, "PATCH", path, map[string]any{"support_email": ""}).Want(t, http.StatusOK)
		if got := supportOf(); got != nil {
			t.Fatalf("support_email after removing it = %v, want null", got)
		}
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Unhelped", "support_email": "no address"}).
			WantError(t, http.StatusBadRequest, "validation_failed")
		s.As(t, key, "DELETE", path+"?permanent=true", nil).Want(t, http.StatusOK)
	})

	t.Run("SlugDerived", func(t *testing.T) {
		id := newApp(t, s, key, "Sound Studio 3!")
		d := s.As(t, key, "GET", "/v1/mgmt/applications/"+id, nil).Want(t, http.StatusOK).Map(t)
		if d["slug"] != "sound-studio-3" {
			t.Fatalf("slug = %v", d["slug"])
		}
	})

	t.Run("SlugFromAwkwardNames", func(t *testing.T) {
		for name, want := range map[string]string{"Éditeur Photo": "editeur-photo", "Go": "app-go", "X2": "app-x2"} {
			r := s.As(t, key, "GET", "/v1/mgmt/applications/"+newApp(t, s, key, name), nil).Want(t, http.StatusOK).Map(t)
			if r["slug"] != want {
				t.Errorf("name %q: slug = %v, want %s", name, r["slug"], want)
			}
		}
		var e api.ErrorBody
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "日本語アプリ"}).Want(t, http.StatusBadRequest).JSON(t, &e)
		if e.Error.Code != "validation_failed" || !strings.Contains(e.Error.Message, "pass slug") {
			t.Fatalf("error = %+v, want validation_failed telling to pass slug", e.Error)
		}
		var c struct {
			ApplicationID string `json:"application_id"`
		}
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "日本語アプリ", "slug": "nihongo"}).Want(t, http.StatusCreated).JSON(t, &c)
		r := s.As(t, key, "GET", "/v1/mgmt/applications/"+c.ApplicationID, nil).Want(t, http.StatusOK).Map(t)
		if r["name"] != "日本語アプリ" || r["slug"] != "nihongo" {
			t.Fatalf("created = %v", r)
		}
	})

	t.Run("ErrSlugTaken", func(t *testing.T) {
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Another", "slug": "photo-editor"}).WantError(t, http.StatusConflict, "slug_taken")
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, body := range []any{
			map[string]any{"name": ""},
			map[string]any{"name": "X", "slug": "Bad Slug"},
			map[string]any{"name": "X", "slug": "a--b"},
			map[string]any{"name": 12},
			map[string]any{"name": strings.Repeat("n", 101)},
		} {
			s.As(t, key, "POST", "/v1/mgmt/applications", body).WantError(t, http.StatusBadRequest, "validation_failed")
		}
		id := newApp(t, s, key, "Validation App")
		s.As(t, key, "PATCH", "/v1/mgmt/applications/"+id, map[string]any{"status": "paused"}).WantError(t, http.StatusBadRequest, "validation_failed")
	})

	t.Run("ErrInvalidJSON", func(t *testing.T) {
		s.As(t, key, "POST", "/v1/mgmt/applications", "{not json").WantError(t, http.StatusBadRequest, "invalid_json")
		s.As(t, key, "POST", "/v1/mgmt/applications", "").WantError(t, http.StatusBadRequest, "invalid_json")
	})

	t.Run("ErrBodyTooLarge", func(t *testing.T) {
		big := `{"name":"` + strings.Repeat("x", 1<<20) + `"}`
		s.As(t, key, "POST", "/v1/mgmt/applications", big).WantError(t, http.StatusRequestEntityTooLarge, "body_too_large")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		s.As(t, key, "GET", "/v1/mgmt/applications/not-a-uuid", nil).WantError(t, http.StatusNotFound, "not_found")
		s.As(t, key, "GET", "/v1/mgmt/applications/0190c0de-0000-7000-8000-000000000000", nil).WantError(t, http.StatusNotFound, "not_found")
		other := s.NewOrg(t)
		id := newApp(t, s, other.APIKey, "Theirs")
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			s.As(t, key, m, "/v1/mgmt/applications/"+id, map[string]any{"name": "mine"}).WantError(t, http.StatusNotFound, "not_found")
		}
		s.As(t, key, "GET", "/v1/mgmt/applications/"+id+"/environments", nil).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		s.Do(t, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		s.As(t, "dev_key_nope", "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		s.As(t, "garbage", "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})

	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		s.As(t, key, "PUT", "/v1/mgmt/applications", nil).WantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
	})

	t.Run("DeleteSoftThenPermanent", func(t *testing.T) {
		id := newApp(t, s, key, "Doomed")
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+id+"?not=whatever", nil).Want(t, http.StatusOK)
		d := s.As(t, key, "GET", "/v1/mgmt/applications/"+id, nil).Want(t, http.StatusOK).Map(t)
		if d["status"] != "disabled" {
			t.Fatalf("status after soft delete = %v", d["status"])
		}
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+id+"?permanent=true", nil).Want(t, http.StatusOK)
		s.As(t, key, "GET", "/v1/mgmt/applications/"+id, nil).WantError(t, http.StatusNotFound, "not_found")
		// The slug is free again.
		s.As(t, key, "POST", "/v1/mgmt/applications", map[string]any{"name": "Doomed"}).Want(t, http.StatusCreated)
	})
}

func TestAppSecretsAndAPIKeys(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	key := org.APIKey
	app := newApp(t, s, key, "Secret App")
	other := newApp(t, s, key, "Other App")
	envs := s.As(t, key, "GET", "/v1/mgmt/applications/"+app+"/environments", nil).List(t)
	envID := map[string]string{}
	for _, e := range envs {
		envID[e["name"].(string)] = e["id"].(string)
	}

	var sec struct {
		SecretID  string `json:"secret_id"`
		Plaintext string `json:"plaintext"`
	}
	r := s.As(t, key, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": envID["production"], "label": "ci"}).Want(t, http.StatusCreated)
	servertest.WantKeys(t, r.Map(t), "secret_id", "plaintext")
	r.JSON(t, &sec)
	if !strings.HasPrefix(sec.Plaintext, "app_sec_live_") {
		t.Fatalf("plaintext = %q", sec.Plaintext)
	}

	t.Run("ListNeverShowsPlaintext", func(t *testing.T) {
		r := s.As(t, key, "GET", "/v1/mgmt/applications/"+app+"/secrets", nil).Want(t, http.StatusOK)
		if strings.Contains(string(r.Body), sec.Plaintext) {
			t.Fatal("plaintext in list")
		}
		l := r.List(t)
		servertest.WantKeys(t, l[0], "id", "label", "environment_id", "last_used_at", "revoked_at", "created_at")
	})

	t.Run("SecretReachesOnlyItsApplication", func(t *testing.T) {
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+app, nil).Want(t, http.StatusOK)
		s.Do(t, "GET", "/v1/mgmt/applications/"+app+"/secrets", nil, "x-api-key", sec.Plaintext).Want(t, http.StatusOK)
		// A sibling application of its organization is forbidden (issue 9 #12);
		// another organization's, or none, is not found.
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+other, nil).WantError(t, http.StatusForbidden, "forbidden")
		s.As(t, sec.Plaintext, "DELETE", "/v1/mgmt/applications/"+other+"?permanent=true", nil).WantError(t, http.StatusForbidden, "forbidden")
		theirs := s.NewOrg(t)
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+newApp(t, s, theirs.APIKey, "Theirs"), nil).WantError(t, http.StatusNotFound, "not_found")
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+store.NewID(), nil).WantError(t, http.StatusNotFound, "not_found")
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusForbidden, "forbidden")
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/api-keys", nil).WantError(t, http.StatusForbidden, "forbidden")
		l := s.As(t, key, "GET", "/v1/mgmt/applications/"+app+"/secrets", nil).List(t)
		if l[0]["last_used_at"] == nil {
			t.Fatal("last_used_at not set after use")
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		s.As(t, key, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"label": "x"}).WantError(t, http.StatusBadRequest, "validation_failed")
		s.As(t, key, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": "nope"}).WantError(t, http.StatusBadRequest, "validation_failed")
		otherEnvs := s.As(t, key, "GET", "/v1/mgmt/applications/"+other+"/environments", nil).List(t)
		s.As(t, key, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": otherEnvs[0]["id"]}).WantError(t, http.StatusBadRequest, "validation_failed")
	})

	t.Run("RevokedSecretUnauthenticated", func(t *testing.T) {
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+app+"/secrets/"+sec.SecretID, nil).Want(t, http.StatusOK)
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/applications/"+app, nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		l := s.As(t, key, "GET", "/v1/mgmt/applications/"+app+"/secrets", nil).List(t)
		if l[0]["revoked_at"] == nil {
			t.Fatal("revoked_at not set")
		}
		s.As(t, key, "DELETE", "/v1/mgmt/applications/"+app+"/secrets/0190c0de-0000-7000-8000-000000000000", nil).WantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("APIKeys", func(t *testing.T) {
		var k struct {
			KeyID     string `json:"key_id"`
			Plaintext string `json:"plaintext"`
		}
		r := s.As(t, key, "POST", "/v1/mgmt/api-keys", map[string]any{"label": "deploy"}).Want(t, http.StatusCreated)
		servertest.WantKeys(t, r.Map(t), "key_id", "plaintext")
		r.JSON(t, &k)
		if !strings.HasPrefix(k.Plaintext, "dev_key_") {
			t.Fatalf("plaintext = %q", k.Plaintext)
		}
		lr := s.As(t, k.Plaintext, "GET", "/v1/mgmt/api-keys", nil).Want(t, http.StatusOK)
		if strings.Contains(string(lr.Body), k.Plaintext) {
			t.Fatal("plaintext in list")
		}
		for _, item := range lr.List(t) {
			servertest.WantKeys(t, item, "id", "label", "last_used_at", "revoked_at", "created_at")
		}
		s.As(t, key, "DELETE", "/v1/mgmt/api-keys/"+k.KeyID, nil).Want(t, http.StatusOK)
		s.As(t, k.Plaintext, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		otherOrg := s.NewOrg(t)
		s.As(t, otherOrg.APIKey, "DELETE", "/v1/mgmt/api-keys/"+k.KeyID, nil).WantError(t, http.StatusNotFound, "not_found")
	})
}

func TestOperatorActsAsOwner(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	op := s.OperatorToken()
	s.As(t, op, "POST", "/v1/mgmt/applications", map[string]any{"name": "Operator App"}, "x-organization-id", org.ID).Want(t, http.StatusCreated)
	s.As(t, op, "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusBadRequest, "validation_failed")
	s.As(t, op, "GET", "/v1/mgmt/applications", nil, "x-organization-id", "0190c0de-0000-7000-8000-000000000000").WantError(t, http.StatusNotFound, "not_found")
}

func TestHealth(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	s.Do(t, "GET", "/healthz", nil).Want(t, http.StatusOK)
	s.Do(t, "GET", "/readyz", nil).Want(t, http.StatusOK)
	m := s.Do(t, "GET", "/metrics", nil).Want(t, http.StatusOK)
	if !strings.Contains(string(m.Body), "licensectl_http_requests_total") {
		t.Fatal("metrics missing request counter")
	}
	s.Do(t, "GET", "/nope", nil).WantError(t, http.StatusNotFound, "not_found")
}

package client_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"licensectl/server/client"
	"licensectl/server/servertest"
	"licensectl/store"
)

func TestErrorsRoundTrip(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	ctx := context.Background()
	c := client.New(s.URL, org.APIKey)

	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := c.FindApplication(ctx, store.AppRef{AppID: store.NewID()})
		if e := store.AsError(err); e == nil || e.Code != store.ECodeNotFound || e.Message != "application not found" {
			t.Fatalf("err = %#v, want not_found: application not found", err)
		}
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := c.CreateApplication(ctx, store.CreateApplicationInput{Name: ""})
		if store.ErrorCode(err) != store.ECodeValidation {
			t.Fatalf("err = %v, want validation_failed", err)
		}
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		_, err := client.New(s.URL, "dev_key_nope").ListApplications(ctx, "")
		if store.ErrorCode(err) != store.ECodeUnauthenticated {
			t.Fatalf("err = %v, want unauthenticated", err)
		}
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		_, err := c.ListOrganizations(ctx)
		if store.ErrorCode(err) != store.ECodeForbidden {
			t.Fatalf("err = %v, want forbidden", err)
		}
	})
	t.Run("ErrUnavailable", func(t *testing.T) {
		_, err := client.New("http://127.0.0.1:1", org.APIKey).ListApplications(ctx, "")
		if store.ErrorCode(err) != store.ECodeUnavailable {
			t.Fatalf("err = %v, want unavailable", err)
		}
	})
}

func TestForeignErrorBody(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		code   string
	}{
		{http.StatusBadGateway, "<html>bad gateway</html>", store.ECodeUnavailable},
		{http.StatusNotFound, "", store.ECodeNotFound},
		{http.StatusTooManyRequests, `{"error":{"code":"rate_limited","message":"slow down","retry_after_seconds":7}}`, store.ECodeRateLimited},
		{http.StatusTeapot, "{}", store.ECodeInternal},
	} {
		h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}))
		_, err := client.New(h.URL, "k").ListApplications(context.Background(), "")
		h.Close()
		e := store.AsError(err)
		if e == nil || e.Code != tc.code {
			t.Fatalf("status %d body %q: err %v, want code %s", tc.status, tc.body, err, tc.code)
		}
		if tc.code == store.ECodeRateLimited && e.RetryAfter != 7 {
			t.Fatalf("RetryAfter = %d, want 7", e.RetryAfter)
		}
	}
}

func TestBackupIncomplete(t *testing.T) {
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("only ten b"))
	}))
	defer h.Close()
	var buf bytes.Buffer
	if _, err := client.New(h.URL, "op").Backup(context.Background(), &buf); err == nil {
		t.Fatal("a backup cut short was accepted")
	}
}

// TestListAppSecretsNamesTheEnvironment: the API's secret item has only the
// environment's id; the client names it from the application, as the store
// does, so local and remote callers read the same (docs/tui.md §4, principle 7, and §5.8).
func TestListAppSecretsNamesTheEnvironment(t *testing.T) {
	s := servertest.New(t)
	org := s.NewOrg(t)
	ctx := context.Background()
	c := client.New(s.URL, org.APIKey)
	app, err := c.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "photo-editor"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: org.ID, AppID: app.ID}
	want := map[string]string{} // label → environment name
	for _, env := range app.Environments {
		created, _, err := c.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: env.ID, Label: "ci-" + env.Name})
		if err != nil {
			t.Fatal(err)
		}
		if created.Env != env.Name {
			t.Fatalf("created secret's Env = %q, want %q", created.Env, env.Name)
		}
		want[created.Label] = env.Name
	}
	list, err := c.ListAppSecrets(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(want) {
		t.Fatalf("%d secrets listed, want %d", len(list), len(want))
	}
	local, err := s.Store().ListAppSecrets(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range list {
		if sec.Env != want[sec.Label] {
			t.Errorf("secret %q: Env = %q, want %q", sec.Label, sec.Env, want[sec.Label])
		}
	}
	for _, sec := range local {
		if sec.Env != want[sec.Label] {
			t.Errorf("the store's secret %q: Env = %q, want %q (the client must agree with it)", sec.Label, sec.Env, want[sec.Label])
		}
	}
}

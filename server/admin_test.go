package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/bolt"
)

func TestAdminOrganizations(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	op := s.OperatorToken()
	org := s.NewOrg(t)

	t.Run("OK", func(t *testing.T) {
		r := s.As(t, op, "POST", "/v1/admin/organizations", map[string]any{"name": "Acme", "owner_email": "boss@acme.test", "owner_password": servertest.Password}).Want(t, http.StatusCreated)
		m := r.Map(t)
		servertest.WantKeys(t, m, "id", "name", "slug", "email_verified", "created_at", "updated_at")
		if m["slug"] != "acme" || m["email_verified"] != true {
			t.Fatalf("created = %v", m)
		}
		servertest.WantTime(t, "created_at", m["created_at"])
		// The operator's list has the page envelope of every growing list.
		var page struct {
			Data    []map[string]any `json:"data"`
			Total   int              `json:"total"`
			Page    int              `json:"page"`
			PerPage int              `json:"per_page"`
		}
		s.Do(t, "GET", "/v1/admin/organizations", nil, "x-api-key", op).Want(t, http.StatusOK).JSON(t, &page)
		if list := page.Data; len(list) != 2 || list[0]["id"] != m["id"] || list[1]["id"] != org.ID || page.Total != 2 || page.Page != 1 || page.PerPage != 2 {
			t.Fatalf("list = %+v", page)
		}
		got := s.As(t, op, "GET", "/v1/admin/organizations/"+org.ID, nil).Want(t, http.StatusOK).Map(t)
		if got["id"] != org.ID {
			t.Fatalf("get = %v", got)
		}
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		s.Do(t, "GET", "/v1/admin/organizations", nil).WantError(t, http.StatusUnauthorized, store.ECodeUnauthenticated)
		s.As(t, "op_wrong", "GET", "/v1/admin/organizations", nil).WantError(t, http.StatusUnauthorized, store.ECodeUnauthenticated)
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		s.As(t, org.APIKey, "GET", "/v1/admin/organizations", nil).WantError(t, http.StatusForbidden, store.ECodeForbidden)
		s.As(t, org.APIKey, "GET", "/v1/admin/backup", nil).WantError(t, http.StatusForbidden, store.ECodeForbidden)
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		s.As(t, op, "POST", "/v1/admin/organizations", map[string]any{"name": ""}).WantError(t, http.StatusBadRequest, store.ECodeValidation)
		s.As(t, op, "POST", "/v1/admin/organizations", map[string]any{"name": "X", "owner_email": "a@b.test", "owner_password": "short"}).WantError(t, http.StatusBadRequest, store.ECodeValidation)
	})
	t.Run("ErrEmailTaken", func(t *testing.T) {
		s.As(t, op, "POST", "/v1/admin/organizations", map[string]any{"name": "Y", "owner_email": org.OwnerEmail, "owner_password": servertest.Password}).WantError(t, http.StatusConflict, store.ECodeEmailTaken)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		s.As(t, op, "GET", "/v1/admin/organizations/"+store.NewID(), nil).WantError(t, http.StatusNotFound, store.ECodeNotFound)
		s.As(t, op, "GET", "/v1/admin/organizations/not-an-id", nil).WantError(t, http.StatusNotFound, store.ECodeNotFound)
	})
	t.Run("ErrMethodNotAllowed", func(t *testing.T) {
		s.As(t, op, "DELETE", "/v1/admin/organizations", nil).WantError(t, http.StatusMethodNotAllowed, store.ECodeMethod)
	})
}

func TestAdminBackup(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	if _, ok := s.Store().(store.FileBackup); !ok {
		t.Skip("the store is not one file (PostgreSQL): TestAdminBackupUnsupported covers its answer")
	}
	org := s.NewOrg(t)
	r := s.As(t, s.OperatorToken(), "GET", "/v1/admin/backup", nil).Want(t, http.StatusOK)
	if got := r.Header.Get("Content-Length"); got != strconv.Itoa(len(r.Body)) {
		t.Fatalf("Content-Length %s, body %d bytes", got, len(r.Body))
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	path := filepath.Join(t.TempDir(), "b.db")
	if err := os.WriteFile(path, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FindOrganization(context.Background(), org.ID); err != nil {
		t.Fatalf("organization missing from backup: %v", err)
	}
}

// fileless is a store that is not one file: it lacks store.FileBackup, as a
// store on a database server does.
type fileless struct{ store.Backend }

// A store that cannot stream a file says so with its own code, before any
// byte of a body (issue 20: Backup is optional); on PostgreSQL the answer
// names pg_dump (docs/design.md §12).
func TestAdminBackupUnsupported(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ driver, want string }{
		{config.DriverBolt, "its database's own tools"},
		{config.DriverPostgres, "pg_dump"},
	} {
		t.Run(tt.driver, func(t *testing.T) {
			cfg := config.Default()
			cfg.DataDir = t.TempDir()
			cfg.Server.Listen = "127.0.0.1:0"
			cfg.Admin.OperatorToken = "op_backup_unsupported"
			db, err := servertest.OpenStore(cfg.DataDir, servertest.StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Storage.Driver = tt.driver // what the server says; the store is a stand-in either way
			srv, err := server.New(cfg, fileless{db}, server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if err := srv.Open(); err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/v1/admin/backup", nil)
			req.Header.Set("Authorization", "Bearer "+cfg.Admin.OperatorToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusNotImplemented || body.Error.Code != store.ECodeBackupUnsupported || !strings.Contains(body.Error.Message, tt.want) {
				t.Fatalf("got %d %+v, want 501 %s saying %q", resp.StatusCode, body.Error, store.ECodeBackupUnsupported, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct == "application/octet-stream" {
				t.Fatalf("Content-Type %q: the answer claims a file", ct)
			}
		})
	}
}

func TestBackupCancelled(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fb, ok := s.Store().(store.FileBackup)
	if !ok {
		t.Skip("the store is not one file: it streams no backup to cancel")
	}
	var buf bytes.Buffer
	if _, err := fb.Backup(ctx, &buf); err == nil {
		t.Fatal("Backup with a cancelled context succeeded")
	}
}

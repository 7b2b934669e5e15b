package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/store"
)

// admin wraps an operator handler: no credential or an unknown one is
// unauthenticated; a valid management credential that is not the operator
// token is forbidden.
func (s *Server) admin(fn handlerFunc) http.Handler {
	return s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		op, err := s.isOperator(r.Context(), credential(r))
		if err != nil {
			return err
		}
		if !op {
			if _, err := s.authenticate(r); err != nil {
				return err
			}
			return store.Errorf(store.ECodeForbidden, "this call requires the operator token")
		}
		ctx := store.WithActor(r.Context(), store.Actor{Type: store.ActorOperator, ID: "operator", IP: clientIP(r), UserAgent: r.UserAgent()})
		return fn(w, r.WithContext(ctx))
	})
}

func (s *Server) adminListOrganizations(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListOrganizations(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.WholePage(mapList(list, api.AdminOrganizationOf)))
	return nil
}

func (s *Server) adminGetOrganization(w http.ResponseWriter, r *http.Request) error {
	o, err := s.db.FindOrganization(r.Context(), mux.Vars(r)["orgId"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.AdminOrganizationOf(o))
	return nil
}

func (s *Server) adminCreateOrganization(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateOrganizationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	o, err := s.db.CreateOrganization(r.Context(), store.CreateOrganizationInput{Name: req.Name, OwnerEmail: req.OwnerEmail, OwnerPassword: req.OwnerPassword})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.AdminOrganizationOf(o))
	return nil
}

// backupWriter sets Content-Length from the size of the read transaction
// before the first byte, so a client can tell a complete copy from a cut one.
type backupWriter struct {
	w       http.ResponseWriter
	started bool
}

// SetBackupSize implements bolt.BackupSizer: it sends the headers.
func (b *backupWriter) SetBackupSize(n int64) {
	h := b.w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	h.Set("Content-Disposition", `attachment; filename="licensectl-`+time.Now().UTC().Format("20060102T150405Z")+`.db"`)
	h.Set("Cache-Control", "no-store")
	b.w.WriteHeader(http.StatusOK)
	b.started = true
}

// Write streams the copy into the response.
func (b *backupWriter) Write(p []byte) (int, error) { return b.w.Write(p) }

// BackupOnPostgres is the one-line answer of a backup of the PostgreSQL
// store, local or through the server (docs/design.md §12).
const BackupOnPostgres = "the store is PostgreSQL (storage.driver postgres): back it up with pg_dump and restore it with pg_restore (docs/deploy.md, PostgreSQL)"

// backup streams a consistent copy of the database from one read
// transaction, when the store is a file it can copy.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) error {
	fb, ok := s.db.(store.FileBackup)
	if !ok && s.cfg.Storage.Driver == config.DriverPostgres {
		return store.Errorf(store.ECodeBackupUnsupported, "%s", BackupOnPostgres)
	}
	if !ok {
		return store.Errorf(store.ECodeBackupUnsupported, "this store is not one file the server can stream: back it up with its database's own tools")
	}
	bw := &backupWriter{w: w}
	n, err := fb.Backup(r.Context(), bw)
	if err != nil {
		if !bw.started {
			return err
		}
		// The status is sent: the body ends short of Content-Length, and
		// net/http closes the connection, so the client sees a cut copy.
		s.logger.Error("backup failed", "bytes", n, "err", err)
		return nil
	}
	s.logger.Info("backup sent", "bytes", n)
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"licensectl/config"
)

// backupView is the JSON output of backup.
type backupView struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
}

func newBackupCmd(e *env) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE (- for stdout)",
		Long: "Backup copies the whole database from one read transaction, so the copy is\n" +
			"consistent even while the server keeps writing. Locally (server stopped) it\n" +
			"reads <data-dir>/licensectl.db; remotely (--server, operator token) it\n" +
			"streams GET /v1/admin/backup. FILE is written to a temporary name and\n" +
			"renamed when complete. To restore: stop the server, replace the file, start.\n" +
			"On PostgreSQL (storage.driver postgres) use pg_dump instead: docs/deploy.md.",
		Example: "  licensectl backup /var/backups/licensectl-$(date +%F).db\n" +
			"  licensectl --server http://127.0.0.1:8080 --api-key \"$(cat data/operator.token)\" backup backup.db\n" +
			"  licensectl backup - | gzip > backup.db.gz",
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			file := args[0]
			if e.flagOrEnv(cmd, flagServer, envServer) == "" {
				// Answered before anything is opened or written: the
				// database's own tools back it up (docs/design.md §12).
				cfg, err := loadConfig(cmd, e)
				if err != nil {
					return err
				}
				if cfg.Storage.Driver == config.DriverPostgres {
					return errPostgresBackup
				}
			}
			if file != "-" && !force {
				if _, err := os.Stat(file); err == nil {
					return fmt.Errorf("%s exists: choose another name or pass --force to replace it", file)
				}
			}
			return e.withSession(cmd, openOpts{readOnly: true}, func(ctx context.Context, s *session) error {
				if file == "-" {
					_, err := s.svc.Backup(ctx, cmd.OutOrStdout())
					return err
				}
				if !s.remote {
					a, _ := filepath.Abs(file)
					b, _ := filepath.Abs(s.where)
					if a == b {
						return fmt.Errorf("%s is the database itself: write the backup elsewhere", file)
					}
				}
				n, err := writeAtomic(file, func(f *os.File) (int64, error) { return s.svc.Backup(ctx, f) })
				if err != nil {
					return err
				}
				return out.emit(backupView{File: file, Bytes: n}, func(t *table) {
					t.row(fmt.Sprintf("wrote %d bytes from %s to %s", n, s.where, file))
				})
			})
		},
	}
	c.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	return c
}

// writeAtomic writes a new file next to path with fill, syncs it and renames
// it over path; on failure nothing is left behind.
func writeAtomic(path string, fill func(f *os.File) (int64, error)) (n int64, err error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("directory %s does not exist", dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if n, err = fill(f); err != nil {
		return n, err
	}
	if err = f.Sync(); err != nil {
		return n, err
	}
	if err = f.Close(); err != nil {
		return n, err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return n, err
	}
	syncDir(dir)
	return n, nil
}

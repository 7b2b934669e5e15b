package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"licensectl/store"
	"licensectl/store/bolt"
)

// restoreView is the JSON output of restore.
type restoreView struct {
	From          string `json:"from"`
	Database      string `json:"database"`
	Bytes         int64  `json:"bytes"`
	PreviousFile  string `json:"previous_file"` // "" when there was none
	SchemaVersion uint64 `json:"schema_version"`
	OperatorToken string `json:"operator_token"` // kept, new, or none
}

func newRestoreCmd(e *env) *cobra.Command {
	var newToken bool
	c := &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the database with a backup (server stopped)",
		Long: "Restore checks that FILE is a licensectl database that opens and passes\n" +
			"bbolt's consistency check, moves the current <data-dir>/licensectl.db aside\n" +
			"(licensectl.db.before-restore-TIME) and puts a copy of FILE in its place.\n" +
			"The server must be stopped; it applies any schema migration when it starts.\n" +
			"The operator token file is kept unless --new-operator-token is given.",
		Example: "  licensectl restore /var/backups/licensectl-2026-11-24.db\n" +
			"  licensectl --data-dir /var/lib/licensectl restore backup.db --new-operator-token",
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			if e.flagOrEnv(cmd, flagServer, envServer) != "" {
				return usageErrorf("restore works on the local file only: stop the server and run it without --server")
			}
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			v, err := restoreFile(args[0], cfg.DataDir, newToken)
			if err != nil {
				return err
			}
			return out.emit(v, func(t *table) {
				t.row(fmt.Sprintf("restored %s (%d bytes, schema version %d) into %s", v.From, v.Bytes, v.SchemaVersion, v.Database))
				if v.PreviousFile != "" {
					t.row("the previous database is kept at " + v.PreviousFile)
				}
				tok := filepath.Join(filepath.Dir(v.Database), "operator.token")
				switch v.OperatorToken {
				case "kept":
					t.row("kept the operator token in " + tok)
				case "new":
					t.row("wrote a new operator token to " + tok + " (the old one no longer works)")
				default:
					t.row("no operator token yet: the server writes one to " + tok + " when it starts")
				}
			})
		},
	}
	c.Flags().BoolVar(&newToken, "new-operator-token", false, "replace the operator token file with a new token")
	return c
}

// restoreFile checks the backup, then swaps it in for dataDir's database.
func restoreFile(from, dataDir string, newToken bool) (restoreView, error) {
	v := restoreView{From: from, Database: filepath.Join(dataDir, "licensectl.db")}
	ver, err := checkBackup(from)
	if err != nil {
		return v, err
	}
	v.SchemaVersion = ver
	if a, b := absPath(from), absPath(v.Database); a == b {
		return v, fmt.Errorf("%s is the database itself: nothing to restore", from)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return v, fmt.Errorf("create data dir: %w", err)
	}
	if _, err := os.Stat(v.Database); err == nil {
		// Opening the current file takes its lock: a running server holds it,
		// and restoring under it would be lost at its next commit.
		cur, err := bolt.Open(v.Database, bolt.Options{ReadOnly: true})
		if errors.Is(err, bolt.ErrLocked) {
			return v, fmt.Errorf("%s is locked by another process, most likely a running `licensectl serve`: stop it first", v.Database)
		}
		if err == nil {
			cur.Close()
		}
		v.PreviousFile = v.Database + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(v.Database, v.PreviousFile); err != nil {
			return v, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	src, err := os.Open(from)
	if err != nil {
		return v, err
	}
	defer src.Close()
	if v.Bytes, err = writeAtomic(v.Database, func(f *os.File) (int64, error) { return io.Copy(f, src) }); err != nil {
		if v.PreviousFile != "" {
			_ = os.Rename(v.PreviousFile, v.Database)
		}
		return v, err
	}
	if err := os.Chmod(v.Database, 0o600); err != nil {
		return v, err
	}
	v.OperatorToken, err = restoreOperatorToken(filepath.Join(dataDir, "operator.token"), newToken)
	return v, err
}

// checkBackup opens the file read-only, walks every page, and returns its
// schema version; a file newer than this binary is refused.
func checkBackup(path string) (uint64, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, err
	}
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("%s is not a usable licensectl database: %w", path, err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		return 0, fmt.Errorf("%s fails the consistency check: %w", path, err)
	}
	ver, err := db.StoredSchemaVersion()
	if err != nil {
		return 0, err
	}
	if ver == 0 {
		return 0, fmt.Errorf("%s is not a licensectl database (no schema version)", path)
	}
	if ver > bolt.SchemaVersion {
		return 0, fmt.Errorf("%s has schema version %d, newer than this binary's %d: restore it with a newer licensectl", path, ver, bolt.SchemaVersion)
	}
	return ver, nil
}

// restoreOperatorToken keeps the token file, or writes a new token when asked.
func restoreOperatorToken(path string, renew bool) (string, error) {
	_, err := os.Stat(path)
	exists := err == nil
	if !renew {
		if exists {
			return "kept", nil
		}
		return "none", nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(store.NewSecret("op_")+"\n"), 0o600); err != nil {
		return "", err
	}
	return "new", os.Rename(tmp, path)
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"licensectl/config"
	"licensectl/server"
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
			cfg, err := e.localConfig(cmd, "restore works on the local file only: stop the server and run it without --server")
			if err != nil {
				return err
			}
			if cfg.Storage.Driver == config.DriverPostgres {
				return errPostgresRestore
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

// errPostgresRestore is restore's one-line answer on PostgreSQL: its
// backups are the database's own (docs/design.md §12).
var errPostgresRestore = store.Errorf(store.ECodeBackupUnsupported,
	"restore replaces the bbolt file, and the store is PostgreSQL (storage.driver postgres): restore a pg_dump archive with pg_restore (docs/deploy.md, PostgreSQL)")

// restoreFile checks the backup, then swaps it in for dataDir's database.
// Nothing is replaced until a copy of the backup, migrated and with every
// record decoded, waits next to the database (docs/design.md §11).
func restoreFile(from, dataDir string, newToken bool) (restoreView, error) {
	v := restoreView{From: from, Database: filepath.Join(dataDir, "licensectl.db")}
	if err := regularFile(from); err != nil {
		return v, err
	}
	if a, b := absPath(from), absPath(v.Database); a == b {
		return v, fmt.Errorf("%s is the database itself: nothing to restore", from)
	}
	src, ver, err := openRestoreSource(from)
	if err != nil {
		return v, err
	}
	defer src.Close()
	v.SchemaVersion = ver
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return v, fmt.Errorf("create data dir: %w", err)
	}
	_, err = os.Stat(v.Database)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	if exists {
		// Opening the current file takes its lock: a running server holds it,
		// and restoring under it would be lost at its next commit.
		cur, err := bolt.Open(v.Database, bolt.Options{ReadOnly: true})
		if errors.Is(err, bolt.ErrLocked) {
			return v, fmt.Errorf("%s is locked by another process, most likely a running `licensectl serve`: stop it first", v.Database)
		}
		if err == nil {
			cur.Close()
		}
	}
	tokPath := filepath.Join(dataDir, "operator.token")
	tok, err := planOperatorToken(tokPath, newToken)
	if err != nil {
		return v, err
	}
	v.OperatorToken = tok.outcome
	staged, n, err := stageRestore(src, dataDir, tok.hash)
	if err != nil {
		return v, err
	}
	v.Bytes = n
	if exists {
		v.PreviousFile = v.Database + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(v.Database, v.PreviousFile); err != nil {
			os.Remove(staged)
			return v, err
		}
	}
	if err := os.Rename(staged, v.Database); err != nil {
		os.Remove(staged)
		if v.PreviousFile != "" {
			_ = os.Rename(v.PreviousFile, v.Database)
		}
		return v, err
	}
	syncDir(dataDir)
	if tok.outcome == "new" {
		err = server.WriteOperatorToken(tokPath, tok.plain)
	}
	return v, err
}

// regularFile refuses what is not a regular file before anything opens it
// for reading: a named pipe would block the open, a device would stream
// forever. The open does not block (O_NONBLOCK), and the check is on what
// was opened, not on a name that could change in between.
func regularFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): restore takes a backup file", path, fileKind(fi.Mode()))
	}
	if fi.Size() == 0 {
		// bbolt would try to format it and fail on the read-only handle.
		return fmt.Errorf("%s is empty (0 bytes): restore takes a backup file (licensectl backup FILE)", path)
	}
	return nil
}

// fileKind names the type of a file that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// openRestoreSource opens the file read-only, walks every page, and returns it
// with its schema version; a file newer than this binary is refused.
func openRestoreSource(path string) (*bolt.DB, uint64, error) {
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("%s is not a usable licensectl database: %w", path, err)
	}
	ver, err := checkBackup(db, path)
	if err != nil {
		db.Close()
		return nil, 0, err
	}
	return db, ver, nil
}

func checkBackup(db *bolt.DB, path string) (uint64, error) {
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

// stageRestore writes the pages src's records use into a new file in
// dataDir, brings it to this binary's schema and decodes every record; it
// returns the file's path and size, or removes it and says why not. An old
// backup is thus migrated here, where a failing migration still leaves the
// database untouched, rather than at the next start.
//
// The restored store gets the operator token's hash the data directory
// needs (tokenHash, "" for none): the backup's own may be another token's.
func stageRestore(src *bolt.DB, dataDir, tokenHash string) (string, int64, error) {
	f, err := os.CreateTemp(dataDir, ".licensectl.db.restore-*")
	if err != nil {
		return "", 0, err
	}
	path := f.Name()
	f.Close()
	fail := func(err error) (string, int64, error) {
		os.Remove(path)
		return "", 0, err
	}
	if _, err := src.CompactInto(path); err != nil {
		return fail(fmt.Errorf("copy %s: %w", src.Path(), err))
	}
	db, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		return fail(err)
	}
	err = db.VerifyRecords(context.Background())
	if err == nil {
		err = setOperatorTokenHash(db, tokenHash)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(fmt.Errorf("%s holds a record this server could not read, refused: %w", src.Path(), err))
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	return path, fi.Size(), nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// restoredToken is what restore does with the operator token: the hash
// the restored store gets and the outcome restore reports.
type restoredToken struct {
	outcome string // kept, new or none
	plain   string // the new token, written after the swap
	hash    string
}

// planOperatorToken decides the operator token of the restored store: the
// token file's, kept working; a new one when asked; or none, so that the
// server makes one at its next start (docs/design.md §12).
func planOperatorToken(path string, renew bool) (restoredToken, error) {
	if renew {
		tok := store.NewSecret("op_")
		return restoredToken{outcome: "new", plain: tok, hash: store.HashSecret(tok)}, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return restoredToken{outcome: "none"}, nil
	}
	if err != nil {
		return restoredToken{}, err
	}
	if tok := strings.TrimSpace(string(b)); tok != "" {
		return restoredToken{outcome: "kept", hash: store.HashSecret(tok)}, nil
	}
	return restoredToken{outcome: "none"}, nil
}

// setOperatorTokenHash replaces the operator token's hash of db with hash
// ("" removes it).
func setOperatorTokenHash(db *bolt.DB, hash string) error {
	ctx := context.Background()
	cur, err := db.OperatorTokenHash(ctx)
	if err != nil {
		return err
	}
	if _, err := db.SwapOperatorTokenHash(ctx, cur, hash); err != nil {
		return fmt.Errorf("set the operator token: %w", err)
	}
	return nil
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

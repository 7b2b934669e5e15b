package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/config"
	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/postgres"
)

// storeCopyView is the JSON output of store copy.
type storeCopyView struct {
	From   string         `json:"from"`
	Counts map[string]int `json:"counts"`
	Total  int            `json:"total"`
}

func newStoreCmd(e *env) *cobra.Command {
	return noun("store", "Move the data between stores", newStoreCopyCmd(e))
}

func newStoreCopyCmd(e *env) *cobra.Command {
	var to string
	c := &cobra.Command{
		Use:   "copy --to postgres://…",
		Short: "Copy the local bbolt store into an empty PostgreSQL database",
		Long: "Copy reads every record of <data-dir>/licensectl.db (the server must be\n" +
			"stopped; the file is opened read-only) and writes it into the PostgreSQL\n" +
			"database of --to in one transaction: ids, password and token hashes,\n" +
			"signing keys, audit, pending webhook deliveries. The database must be\n" +
			"empty (a fresh one, migrated by this command); one holding any record is\n" +
			"refused. Before it commits, the copy counts every kind of record in the\n" +
			"database and fails, writing nothing, unless the counts are the file's.\n" +
			"It prints the counts per kind. Afterwards set storage.driver to postgres\n" +
			"and storage.postgres.url to the same URL, and start the server: API keys,\n" +
			"secrets, license keys, refresh tokens, the operator token and JWKS keep\n" +
			"working.",
		Example: "  licensectl store copy --to 'postgres://licensectl:secret@db.internal/licensectl'\n" +
			"  LICENSECTL_STORAGE_DRIVER=postgres LICENSECTL_STORAGE_POSTGRES_URL='postgres://…' licensectl serve",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			if strings.TrimSpace(to) == "" {
				return flagNeededf("store copy needs --to with the URL of an empty PostgreSQL database (postgres://user:password@host/db)")
			}
			if e.flagOrEnv(cmd, flagServer, envServer) != "" {
				return flagNeededf("store copy reads the local data file with the server stopped; it does not work through --server")
			}
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			src, path, err := openCopySource(cfg.DataDir)
			if err != nil {
				return err
			}
			defer src.Close()
			ctx := cmd.Context()
			dst, err := postgres.Open(ctx, postgres.Options{URL: to})
			if err != nil {
				return fmt.Errorf("store copy --to: %s", oneLine(err))
			}
			defer dst.Close()
			counts, err := dst.ImportRecords(ctx, src)
			if err != nil {
				return fmt.Errorf("store copy: %s", oneLine(err))
			}
			return printCopyCounts(out, path, counts)
		},
	}
	c.Flags().StringVar(&to, "to", "", "URL of the empty PostgreSQL database to copy into (postgres://user:password@host/db)")
	return c
}

// openCopySource opens <dataDir>/licensectl.db read-only. It is the bbolt
// file whatever storage.driver says: the copy is how a data dir moves to
// PostgreSQL, so the configuration may already name the database.
func openCopySource(dataDir string) (*bolt.DB, string, error) {
	path := filepath.Join(dataDir, "licensectl.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, fmt.Errorf("no database at %s: store copy copies the bbolt file of --data-dir (%s)", path, config.EnvName("data_dir"))
	}
	if err := refuseEmptyDatabase(path); err != nil {
		return nil, path, err
	}
	db, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if errors.Is(err, bolt.ErrLocked) {
		return nil, path, fmt.Errorf("%s is locked by another process, most likely a running `licensectl serve`: stop it first, store copy reads the file with the server stopped", path)
	}
	return db, path, err
}

// oneLine joins the lines of an error (a failed connection lists every
// address it tried) so the refusal stays one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

// printCopyCounts prints the counts per kind, every kind listed, in the
// order the copy writes them.
func printCopyCounts(out *output, from string, counts store.CopyCounts) error {
	v := storeCopyView{From: from, Counts: map[string]int{}}
	for _, k := range store.CopyKinds() {
		v.Counts[string(k)] = counts[k]
		v.Total += counts[k]
	}
	return out.emit(v, func(t *table) {
		t.row("KIND", "COPIED")
		for _, k := range store.CopyKinds() {
			t.row(string(k), strconv.Itoa(counts[k]))
		}
		t.row("total", strconv.Itoa(v.Total))
	})
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"licensectl/server"
	"licensectl/store"
)

// operatorTokenView is the JSON output of operator-token rotate.
type operatorTokenView struct {
	OperatorToken string `json:"operator_token"`
	// File is the token file replaced with the new token, "" when the
	// data directory had none.
	File string `json:"file"`
}

func newOperatorTokenCmd(e *env) *cobra.Command {
	rotate := &cobra.Command{
		Use:   "rotate",
		Short: "Make a new operator token and print it once (local mode)",
		Long: "rotate makes a new operator token, stores its hash in place of the old one\n" +
			"and prints it once: the store keeps only the hash. The old token stops\n" +
			"working at once on every server of the store. A <data-dir>/operator.token\n" +
			"file, when there is one, is replaced with the new token.\n" +
			"It works on the store of the configuration (storage.driver): the bbolt\n" +
			"file with the server stopped, or the PostgreSQL database while servers run.",
		Example: "  licensectl operator-token rotate\n" +
			"  LICENSECTL_STORAGE_DRIVER=postgres LICENSECTL_STORAGE_POSTGRES_URL=postgres://… licensectl operator-token rotate -o json",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			cfg, err := e.localConfig(cmd, "operator-token rotate works on the local store only: run it without --server")
			if err != nil {
				return err
			}
			if cfg.Admin.OperatorToken != "" {
				return errors.New("admin.operator_token is set: the configured token is the operator token; change it in the configuration instead")
			}
			db, _, err := openLocal(cfg, openOpts{})
			if err != nil {
				return err
			}
			defer db.Close()
			v, err := rotateOperatorToken(cmd.Context(), db, filepath.Join(cfg.DataDir, "operator.token"))
			if err != nil {
				return err
			}
			return out.emit(v, func(t *table) {
				t.row(v.OperatorToken)
				if v.File != "" {
					t.row("also written to " + v.File + "; the old token no longer works")
				} else {
					t.row("shown once, keep it safe; the old token no longer works")
				}
			})
		},
	}
	return noun("operator-token", "Manage the operator token (the credential of /v1/admin)", rotate)
}

// rotateOperatorToken swaps the stored hash for a new token's. The swap is
// from the hash read, so that a rotation racing another fails rather than
// leave a token nobody was shown (docs/design.md §12).
func rotateOperatorToken(ctx context.Context, db store.OperatorTokens, path string) (operatorTokenView, error) {
	cur, err := db.OperatorTokenHash(ctx)
	if err != nil {
		return operatorTokenView{}, err
	}
	tok := store.NewSecret("op_")
	ok, err := db.SwapOperatorTokenHash(ctx, cur, store.HashSecret(tok))
	if err != nil {
		return operatorTokenView{}, err
	}
	if !ok {
		return operatorTokenView{}, errors.New("the operator token changed while rotating it (another rotation or a server's first start): run rotate again")
	}
	v := operatorTokenView{OperatorToken: tok}
	if _, err := os.Stat(path); err == nil {
		if err := server.WriteOperatorToken(path, tok); err != nil {
			return v, fmt.Errorf("the new token is in force, but %w; it is %s", err, tok)
		}
		v.File = path
	} else if !errors.Is(err, fs.ErrNotExist) {
		return v, fmt.Errorf("the new token is in force, but %w; it is %s", err, tok)
	}
	return v, nil
}

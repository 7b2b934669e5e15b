package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
)

// operatorTokenMeta names the meta row of the operator token's hash
// (docs/design.md §12).
const operatorTokenMeta = "operator_token_hash"

// OperatorTokenHash implements store.OperatorTokens.
func (db *DB) OperatorTokenHash(ctx context.Context) (string, error) {
	var h []byte
	err := db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE name = $1`, operatorTokenMeta).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return string(h), mapError(err)
}

// SwapOperatorTokenHash implements store.OperatorTokens. Each case is one
// conditional statement, so that of servers racing on an empty database
// exactly one stores its token.
func (db *DB) SwapOperatorTokenHash(ctx context.Context, old, hash string) (bool, error) {
	if err := store.CheckStorable("old", old); err != nil {
		return false, err
	}
	if err := store.CheckStorable("hash", hash); err != nil {
		return false, err
	}
	var (
		sql  string
		args []any
	)
	switch {
	case old == "" && hash == "":
		var n int
		err := db.pool.QueryRow(ctx, `SELECT count(*) FROM meta WHERE name = $1`, operatorTokenMeta).Scan(&n)
		return n == 0, err
	case old == "":
		sql, args = `INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, []any{operatorTokenMeta, []byte(hash)}
	case hash == "":
		sql, args = `DELETE FROM meta WHERE name = $1 AND value = $2`, []any{operatorTokenMeta, []byte(old)}
	default:
		sql, args = `UPDATE meta SET value = $3 WHERE name = $1 AND value = $2`, []any{operatorTokenMeta, []byte(old), []byte(hash)}
	}
	tag, err := db.pool.Exec(ctx, sql, args...)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

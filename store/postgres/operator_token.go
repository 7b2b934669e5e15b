package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5"
)

// operatorTokenMeta names the meta row of the operator token's hash
// (docs/design.md §12).
const operatorTokenMeta = "operator_token_hash"

// OperatorTokenHash implements store.Tx.
func (t *txn) OperatorTokenHash() (string, error) { return t.operatorTokenHash("") }

// LockOperatorTokenHash implements store.Tx.
func (t *txn) LockOperatorTokenHash() (string, error) { return t.operatorTokenHash(" FOR UPDATE") }

// operatorTokenHash reads the stored hash, the row locked as lock says.
func (t *txn) operatorTokenHash(lock string) (string, error) {
	var h []byte
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM meta WHERE name = $1`+lock, operatorTokenMeta).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return string(h), err
}

// PutOperatorTokenHash implements store.Tx. The first hash is inserted
// unless one is there already: of servers initialising one empty database
// together, the insert of one waits for another's commit and then stores
// nothing.
func (t *txn) PutOperatorTokenHash(prev, hash string) (bool, error) {
	var (
		n   int64
		err error
	)
	switch {
	case prev == "":
		n, err = t.exec(`INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, operatorTokenMeta, []byte(hash))
	case hash == "":
		n, err = t.exec(`DELETE FROM meta WHERE name = $1`, operatorTokenMeta)
	default:
		n, err = t.exec(`UPDATE meta SET value = $2 WHERE name = $1`, operatorTokenMeta, []byte(hash))
	}
	return n == 1, err
}

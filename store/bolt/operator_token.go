package bolt

import (
	"context"

	"licensectl/store"
)

// metaOperatorToken keeps the hash of the operator token (docs/design.md §12).
var metaOperatorToken = []byte("operator_token_hash")

// OperatorTokenHash implements store.OperatorTokens.
func (db *DB) OperatorTokenHash(ctx context.Context) (string, error) {
	var h string
	err := db.view(ctx, func(t *txn) error {
		h = string(t.tx.Bucket(bMeta).Get(metaOperatorToken))
		return nil
	})
	return h, err
}

// SwapOperatorTokenHash implements store.OperatorTokens.
func (db *DB) SwapOperatorTokenHash(ctx context.Context, old, hash string) (bool, error) {
	if err := store.CheckStorable("old", old); err != nil {
		return false, err
	}
	if err := store.CheckStorable("hash", hash); err != nil {
		return false, err
	}
	swapped := false
	err := db.update(ctx, func(t *txn) error {
		meta := t.tx.Bucket(bMeta)
		if string(meta.Get(metaOperatorToken)) != old {
			return nil
		}
		swapped = true
		if hash == "" {
			return meta.Delete(metaOperatorToken)
		}
		return meta.Put(metaOperatorToken, []byte(hash))
	})
	return swapped, err
}

package bolt

// metaOperatorToken keeps the hash of the operator token (docs/design.md §12).
var metaOperatorToken = []byte("operator_token_hash")

// OperatorTokenHash implements store.Tx.
func (t *txn) OperatorTokenHash() (string, error) {
	return string(t.tx.Bucket(bMeta).Get(metaOperatorToken)), nil
}

// LockOperatorTokenHash implements store.Tx: one writer holds the file.
func (t *txn) LockOperatorTokenHash() (string, error) { return t.OperatorTokenHash() }

// PutOperatorTokenHash implements store.Tx: under the one writer the hash
// this transaction read is still the stored one.
func (t *txn) PutOperatorTokenHash(_, hash string) (bool, error) {
	meta := t.tx.Bucket(bMeta)
	if hash == "" {
		return true, meta.Delete(metaOperatorToken)
	}
	return true, meta.Put(metaOperatorToken, []byte(hash))
}

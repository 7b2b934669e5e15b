package postgres

import (
	"context"

	"licensectl/store"
)

var _ store.MailTokens = (*DB)(nil)

// MailTokenState implements store.MailTokens. A token of a removed account
// is unknown, like one never issued.
func (db *DB) MailTokenState(ctx context.Context, token, purpose string) (string, error) {
	state := store.TokenStateUnknown
	if err := store.CheckStorable("purpose", purpose); err != nil {
		return state, err
	}
	if token == "" {
		return state, nil
	}
	err := db.view(ctx, func(t *txn) error {
		h := store.SumSecret(token)
		var used, live bool
		err := t.tx.QueryRow(t.ctx, `SELECT k.used_at IS NOT NULL, k.expires_at > $3 FROM mail_tokens k JOIN members m ON m.id = k.member_id
			WHERE k.hash = $1 AND k.purpose = $2`, h[:], purpose, t.now).Scan(&used, &live)
		switch {
		case noRows(err):
			return nil
		case err != nil:
			return err
		case used:
			state = store.TokenStateUsed
		case !live:
			state = store.TokenStateExpired
		default:
			state = store.TokenStateValid
		}
		return nil
	})
	return state, err
}

package bolt

import (
	"context"

	"licensectl/store"
)

var _ store.MailTokens = (*DB)(nil)

// MailTokenState implements store.MailTokens.
func (db *DB) MailTokenState(ctx context.Context, token, purpose string) (string, error) {
	state := store.TokenStateUnknown
	if err := store.CheckStorable("purpose", purpose); err != nil {
		return state, err
	}
	err := db.view(ctx, func(t *txn) error {
		var rec mailToken
		ok, err := t.getAt(bMailTokens, []byte(store.HashSecret(token)), &rec)
		if err != nil || !ok || token == "" || rec.Purpose != purpose {
			return err
		}
		if found, err := t.get(bMembers, rec.MemberID, new(store.Member)); err != nil || !found {
			return err
		}
		switch {
		case !rec.UsedAt.IsZero():
			state = store.TokenStateUsed
		case !t.now.Before(rec.ExpiresAt):
			state = store.TokenStateExpired
		default:
			state = store.TokenStateValid
		}
		return nil
	})
	return state, err
}

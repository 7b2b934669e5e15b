package postgres

import (
	"context"

	"licensectl/store"
)

var (
	_ store.APIKeys    = (*DB)(nil)
	_ store.AppSecrets = (*DB)(nil)
)

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	var out []*store.APIKey
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = docs[store.APIKey](t, `SELECT doc FROM api_keys WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
		return err
	})
	return out, err
}

// ListAppSecrets implements store.AppSecrets.
func (db *DB) ListAppSecrets(ctx context.Context, ref store.AppRef) ([]*store.AppSecret, error) {
	var out []*store.AppSecret
	err := db.view(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		var err error
		out, err = docs[store.AppSecret](t, `SELECT doc FROM app_secrets WHERE app_id = $1 ORDER BY id DESC`, ref.AppID)
		return err
	})
	return out, err
}

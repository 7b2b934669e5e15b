package bolt

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
		out, err = listAll[store.APIKey](t, bAPIKeysOrg, idb(orgID), bAPIKeys)
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
		out, err = listAll[store.AppSecret](t, bSecretsApp, idb(ref.AppID), bSecrets)
		return err
	})
	return out, err
}

package postgres

import "licensectl/store"

// APIKeys implements store.Tx.
func (t *txn) APIKeys(orgID string) ([]*store.APIKey, error) {
	return docs[store.APIKey](t, `SELECT doc FROM api_keys WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
}

// AppSecrets implements store.Tx.
func (t *txn) AppSecrets(appID string) ([]*store.AppSecret, error) {
	return docs[store.AppSecret](t, `SELECT doc FROM app_secrets WHERE app_id = $1 ORDER BY id DESC`, uuidOrNil(appID))
}

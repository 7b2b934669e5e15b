package bolt

import "licensectl/store"

// APIKeys implements store.Tx.
func (t *txn) APIKeys(orgID string) ([]*store.APIKey, error) {
	return listAll[store.APIKey](t, bAPIKeysOrg, idb(orgID), bAPIKeys)
}

// AppSecrets implements store.Tx.
func (t *txn) AppSecrets(appID string) ([]*store.AppSecret, error) {
	return listAll[store.AppSecret](t, bSecretsApp, idb(appID), bSecrets)
}

package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

var (
	_ store.APIKeys    = (*DB)(nil)
	_ store.AppSecrets = (*DB)(nil)
)

// lastUsedGranularity bounds how often authenticating with a credential writes
// its last_used_at: a busy integration must not turn every read into a write.
const lastUsedGranularity = time.Minute

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	var out []*store.APIKey
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = listAll[store.APIKey](t, bAPIKeysOrg, idb(orgID), bAPIKeys)
		return err
	})
	return out, err
}

// AuthenticateAPIKey implements store.APIKeys.
func (db *DB) AuthenticateAPIKey(ctx context.Context, plaintext string) (*store.APIKey, error) {
	k := new(store.APIKey)
	err := db.authenticate(ctx, bAPIKeysHash, bAPIKeys, plaintext, k, func() (*time.Time, *time.Time) { return k.RevokedAt, k.LastUsedAt },
		func(t time.Time) { k.LastUsedAt = &t })
	if err != nil {
		return nil, err
	}
	return k, nil
}

// authenticate finds the record whose hash index holds sha256(plaintext),
// refuses a revoked one, and records its use at most once per granularity.
func (db *DB) authenticate(ctx context.Context, hashes, records []byte, plaintext string, rec any,
	state func() (revoked, lastUsed *time.Time), setUsed func(time.Time)) error {
	h := []byte(store.HashSecret(plaintext))
	unauth := store.ErrCredential()
	var id string
	err := db.view(ctx, func(t *txn) error {
		id = t.lookup(hashes, h)
		if id == "" {
			return unauth
		}
		return t.mustGet(records, id, "credential", rec)
	})
	if err != nil {
		if store.ErrorCode(err) == store.ECodeNotFound {
			return unauth
		}
		return err
	}
	revoked, last := state()
	if revoked != nil {
		return unauth
	}
	now := db.Clock()
	if last != nil && now.Sub(*last) < lastUsedGranularity {
		return nil
	}
	return db.update(ctx, func(t *txn) error {
		if err := t.mustGet(records, id, "credential", rec); err != nil {
			return err
		}
		if revoked, _ := state(); revoked != nil {
			return unauth
		}
		setUsed(t.now)
		return t.put(records, id, rec)
	})
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

// AuthenticateAppSecret implements store.AppSecrets.
func (db *DB) AuthenticateAppSecret(ctx context.Context, plaintext string) (*store.AppSecret, error) {
	s := new(store.AppSecret)
	err := db.authenticate(ctx, bSecretsHash, bSecrets, plaintext, s, func() (*time.Time, *time.Time) { return s.RevokedAt, s.LastUsedAt },
		func(t time.Time) { s.LastUsedAt = &t })
	if err != nil {
		return nil, err
	}
	return s, nil
}

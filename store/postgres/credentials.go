package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

var (
	_ store.APIKeys     = (*DB)(nil)
	_ store.AppSecrets  = (*DB)(nil)
	_ store.Credentials = (*DB)(nil)
)

// lastUsedGranularity bounds how often authenticating with a credential
// writes its last_used_at: a busy integration must not turn every read into
// a write.
const lastUsedGranularity = time.Minute

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	var out []*store.APIKey
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = docs[store.APIKey](t, `SELECT doc FROM api_keys WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
		return err
	})
	return out, err
}

// AuthenticateAPIKey implements store.Credentials.
func (db *DB) AuthenticateAPIKey(ctx context.Context, plaintext string) (*store.APIKey, error) {
	return credentialAuth(ctx, db, "api_keys", plaintext, func(k *store.APIKey) (*time.Time, *time.Time) { return k.RevokedAt, k.LastUsedAt },
		func(k *store.APIKey, t time.Time) { k.LastUsedAt = &t })
}

// AuthenticateAppSecret implements store.Credentials.
func (db *DB) AuthenticateAppSecret(ctx context.Context, plaintext string) (*store.AppSecret, error) {
	return credentialAuth(ctx, db, "app_secrets", plaintext, func(s *store.AppSecret) (*time.Time, *time.Time) { return s.RevokedAt, s.LastUsedAt },
		func(s *store.AppSecret, t time.Time) { s.LastUsedAt = &t })
}

// credentialAuth finds the credential of table whose hash is
// sha256(plaintext) in one query, refuses a revoked one, and records its use
// at most once per granularity. Nothing is cached: a revocation on any
// server refuses the credential on every server at once. The use is
// written under the row's lock, after reading it again, so that it never
// undoes a revocation committed in between.
func credentialAuth[T any](ctx context.Context, db *DB, table, plaintext string, state func(*T) (revoked, lastUsed *time.Time), setUsed func(*T, time.Time)) (*T, error) {
	unauth := store.ErrCredential()
	hash := store.HashSecret(plaintext)
	conn, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	var id string
	var raw []byte
	err = conn.QueryRow(ctx, `SELECT id::text, doc FROM `+table+` WHERE hash = $1`, hash).Scan(&id, &raw)
	conn.Release()
	if noRows(err) {
		return nil, unauth
	}
	if err != nil {
		return nil, mapError(err)
	}
	rec, err := decode[T](raw)
	if err != nil {
		return nil, err
	}
	revoked, last := state(rec)
	if revoked != nil {
		return nil, unauth
	}
	if now := db.Clock(); last != nil && now.Sub(*last) < lastUsedGranularity {
		return rec, nil
	}
	err = db.update(ctx, func(t *txn) error {
		cur, err := doc[T](t, `SELECT doc FROM `+table+` WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return err
		}
		if cur == nil {
			return unauth
		}
		if revoked, _ := state(cur); revoked != nil {
			return unauth
		}
		setUsed(cur, t.now)
		rec = cur
		_, err = t.exec(`UPDATE `+table+` SET doc = $2 WHERE id = $1`, id, js(cur))
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
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

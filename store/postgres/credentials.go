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

// CreateAPIKey implements store.APIKeys.
func (db *DB) CreateAPIKey(ctx context.Context, orgID, label string) (*store.APIKey, string, error) {
	label, err := store.CheckOptionalName("label", label)
	if err != nil {
		return nil, "", err
	}
	plain := store.NewSecret(store.PrefixAPIKey)
	id := store.NewID()
	var out *store.APIKey
	err = db.update(ctx, func(t *txn) error {
		if _, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(orgID)); err != nil {
			return err
		}
		k := &store.APIKey{ID: id, OrgID: orgID, Label: label, Hash: store.HashSecret(plain), CreatedAt: t.now}
		if _, err := t.exec(`INSERT INTO api_keys (id, org_id, hash, doc) VALUES ($1, $2, $3, $4)`, k.ID, k.OrgID, k.Hash, js(k)); err != nil {
			return err
		}
		out = k
		return t.audit(auditEvent{Event: store.EventAPIKeyCreated, OrgID: orgID, Target: store.Target{Type: "api_key", ID: k.ID}, Metadata: map[string]any{"label": label}})
	})
	if err != nil {
		return nil, "", err
	}
	return out, plain, nil
}

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	var out []*store.APIKey
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = docs[store.APIKey](t, `SELECT doc FROM api_keys WHERE org_id = $1 ORDER BY id DESC`, uuidOrNil(orgID))
		return err
	})
	return out, err
}

// RevokeAPIKey implements store.APIKeys. The key's row is locked, so two
// revocations at once write one entry.
func (db *DB) RevokeAPIKey(ctx context.Context, orgID, id string) error {
	return db.update(ctx, func(t *txn) error {
		k, err := mustDoc[store.APIKey](t, "api key", `SELECT doc FROM api_keys WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
		if err != nil {
			return err
		}
		if k.OrgID != orgID {
			return store.NotFound("api key")
		}
		if k.RevokedAt != nil {
			return nil
		}
		k.RevokedAt = &t.now
		if _, err := t.exec(`UPDATE api_keys SET doc = $2 WHERE id = $1`, k.ID, js(k)); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventAPIKeyRevoked, OrgID: orgID, Target: store.Target{Type: "api_key", ID: id}})
	})
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

// CreateAppSecret implements store.AppSecrets.
func (db *DB) CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error) {
	in, err := in.Check()
	if err != nil {
		return nil, "", err
	}
	id := store.NewID()
	var out *store.AppSecret
	var plain string
	err = db.update(ctx, func(t *txn) error {
		a, err := t.lockApp(ref, appLockWrite)
		if err != nil {
			return err
		}
		env, err := in.Environment(a)
		if err != nil {
			return err
		}
		prefix := store.PrefixSecretLive
		if env.Name == store.EnvDevelopment {
			prefix = store.PrefixSecretTest
		}
		plain = store.NewSecret(prefix)
		s := &store.AppSecret{ID: id, OrgID: a.OrgID, AppID: a.ID, EnvironmentID: env.ID, Env: env.Name, Label: in.Label, Hash: store.HashSecret(plain), CreatedAt: t.now}
		if _, err := t.exec(`INSERT INTO app_secrets (id, org_id, app_id, hash, doc) VALUES ($1, $2, $3, $4, $5)`,
			s.ID, s.OrgID, s.AppID, s.Hash, js(s)); err != nil {
			return err
		}
		out = s
		return t.audit(auditEvent{Event: store.EventSecretCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: store.Target{Type: "secret", ID: s.ID}, Metadata: map[string]any{"label": in.Label, "environment": env.Name}})
	})
	if err != nil {
		return nil, "", err
	}
	return out, plain, nil
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

// RevokeAppSecret implements store.AppSecrets. The secret's row is locked,
// so two revocations at once write one entry.
func (db *DB) RevokeAppSecret(ctx context.Context, ref store.AppRef, id string) error {
	return db.update(ctx, func(t *txn) error {
		if _, err := t.lockApp(ref, appLockWrite); err != nil {
			return err
		}
		s, err := mustDoc[store.AppSecret](t, "secret", `SELECT doc FROM app_secrets WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
		if err != nil {
			return err
		}
		if s.AppID != ref.AppID {
			return store.NotFound("secret")
		}
		if s.RevokedAt != nil {
			return nil
		}
		s.RevokedAt = &t.now
		if _, err := t.exec(`UPDATE app_secrets SET doc = $2 WHERE id = $1`, s.ID, js(s)); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventSecretRevoked, OrgID: s.OrgID, AppID: s.AppID, EnvIDs: []string{s.EnvironmentID}, Target: store.Target{Type: "secret", ID: id}})
	})
}

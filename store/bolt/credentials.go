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

// CreateAPIKey implements store.APIKeys.
func (db *DB) CreateAPIKey(ctx context.Context, orgID, label string) (*store.APIKey, string, error) {
	label, err := store.CheckOptionalName("label", label)
	if err != nil {
		return nil, "", err
	}
	plain := store.NewSecret(store.PrefixAPIKey)
	var out *store.APIKey
	err = db.update(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, orgID, "organization", new(store.Organization)); err != nil {
			return err
		}
		k := &store.APIKey{ID: store.NewID(), OrgID: orgID, Label: label, Hash: store.HashSecret(plain), CreatedAt: t.now}
		if err := t.put(bAPIKeys, k.ID, k); err != nil {
			return err
		}
		if err := t.index(bAPIKeysOrg, idb(orgID), k.ID); err != nil {
			return err
		}
		if err := t.tx.Bucket(bAPIKeysHash).Put([]byte(k.Hash), idb(k.ID)); err != nil {
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
		out, err = listAll[store.APIKey](t, bAPIKeysOrg, idb(orgID), bAPIKeys)
		return err
	})
	return out, err
}

// RevokeAPIKey implements store.APIKeys.
func (db *DB) RevokeAPIKey(ctx context.Context, orgID, id string) error {
	return db.update(ctx, func(t *txn) error {
		k := new(store.APIKey)
		if err := t.mustGet(bAPIKeys, id, "api key", k); err != nil {
			return err
		}
		if k.OrgID != orgID {
			return store.NotFound("api key")
		}
		if k.RevokedAt != nil {
			return nil
		}
		k.RevokedAt = &t.now
		if err := t.put(bAPIKeys, id, k); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventAPIKeyRevoked, OrgID: orgID, Target: store.Target{Type: "api_key", ID: id}})
	})
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

// CreateAppSecret implements store.AppSecrets.
func (db *DB) CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error) {
	in, err := in.Check()
	if err != nil {
		return nil, "", err
	}
	var out *store.AppSecret
	var plain string
	err = db.update(ctx, func(t *txn) error {
		a, err := t.app(ref)
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
		s := &store.AppSecret{ID: store.NewID(), OrgID: a.OrgID, AppID: a.ID, EnvironmentID: env.ID, Env: env.Name, Label: in.Label, Hash: store.HashSecret(plain), CreatedAt: t.now}
		if err := t.put(bSecrets, s.ID, s); err != nil {
			return err
		}
		if err := t.index(bSecretsApp, idb(a.ID), s.ID); err != nil {
			return err
		}
		if err := t.tx.Bucket(bSecretsHash).Put([]byte(s.Hash), idb(s.ID)); err != nil {
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
		out, err = listAll[store.AppSecret](t, bSecretsApp, idb(ref.AppID), bSecrets)
		return err
	})
	return out, err
}

// RevokeAppSecret implements store.AppSecrets.
func (db *DB) RevokeAppSecret(ctx context.Context, ref store.AppRef, id string) error {
	return db.update(ctx, func(t *txn) error {
		if _, err := t.app(ref); err != nil {
			return err
		}
		s := new(store.AppSecret)
		if err := t.mustGet(bSecrets, id, "secret", s); err != nil {
			return err
		}
		if s.AppID != ref.AppID {
			return store.NotFound("secret")
		}
		if s.RevokedAt != nil {
			return nil
		}
		s.RevokedAt = &t.now
		if err := t.put(bSecrets, id, s); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventSecretRevoked, OrgID: s.OrgID, AppID: s.AppID, EnvIDs: []string{s.EnvironmentID}, Target: store.Target{Type: "secret", ID: id}})
	})
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

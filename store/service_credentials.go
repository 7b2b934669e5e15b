package store

import (
	"context"
	"time"
)

// LastUsedGranularity bounds how often authenticating with a credential
// writes its last use: a busy integration must not turn every read into a
// write.
const LastUsedGranularity = time.Minute

// credential is what authenticating reads and writes of an API key or an
// application secret.
type credential interface {
	*APIKey | *AppSecret
	uses() (revokedAt *time.Time, lastUsedAt **time.Time)
}

func (k *APIKey) uses() (*time.Time, **time.Time)    { return k.RevokedAt, &k.LastUsedAt }
func (s *AppSecret) uses() (*time.Time, **time.Time) { return s.RevokedAt, &s.LastUsedAt }

// authenticate refuses, with unauthenticated, a credential find does not
// find or that is revoked, and records its use at most once per
// LastUsedGranularity. The use is written under the credential's hold,
// after reading it again (lock), so that it never undoes a revocation
// committed in between.
func authenticate[C credential](sv *Service, ctx context.Context, find func() (C, error),
	lock func(Tx, C) (C, error), put func(Tx, C) error) (C, error) {
	unauth := ErrCredential()
	c, err := find()
	if ErrorCode(err) == ECodeNotFound {
		return nil, unauth
	}
	if err != nil {
		return nil, err
	}
	revoked, last := c.uses()
	if revoked != nil {
		return nil, unauth
	}
	if *last != nil && sv.Clock().Sub(**last) < LastUsedGranularity {
		return c, nil
	}
	err = sv.update(ctx, func(t Tx) error {
		cur, err := lock(t, c)
		if ErrorCode(err) == ECodeNotFound {
			return unauth
		}
		if err != nil {
			return err
		}
		revoked, last := cur.uses()
		if revoked != nil {
			return unauth
		}
		now := t.Now()
		*last = &now
		c = cur
		return put(t, cur)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// AuthenticateAPIKey implements Credentials.
func (sv *Service) AuthenticateAPIKey(ctx context.Context, plaintext string) (*APIKey, error) {
	return authenticate(sv, ctx,
		func() (*APIKey, error) { return sv.storage.APIKeyByHash(ctx, HashSecret(plaintext)) },
		func(t Tx, k *APIKey) (*APIKey, error) { return t.LockAPIKey(k.OrgID, k.ID) },
		func(t Tx, k *APIKey) error { return t.PutAPIKey(k) })
}

// AuthenticateAppSecret implements Credentials.
func (sv *Service) AuthenticateAppSecret(ctx context.Context, plaintext string) (*AppSecret, error) {
	return authenticate(sv, ctx,
		func() (*AppSecret, error) { return sv.storage.AppSecretByHash(ctx, HashSecret(plaintext)) },
		func(t Tx, s *AppSecret) (*AppSecret, error) { return t.LockAppSecret(s.AppID, s.ID) },
		func(t Tx, s *AppSecret) error { return t.PutAppSecret(s) })
}

// CreateAPIKey implements APIKeys.
func (sv *Service) CreateAPIKey(ctx context.Context, orgID, label string) (*APIKey, string, error) {
	label, err := CheckOptionalName("label", label)
	if err != nil {
		return nil, "", err
	}
	plain := NewSecret(PrefixAPIKey)
	id := NewID()
	var out *APIKey
	err = sv.update(ctx, func(t Tx) error {
		if err := t.OrgExists(orgID); err != nil {
			return err
		}
		k := &APIKey{ID: id, OrgID: orgID, Label: label, Hash: HashSecret(plain), CreatedAt: t.Now()}
		if err := t.InsertAPIKey(k); err != nil {
			return err
		}
		out = k
		return t.Audit(AuditEvent{Event: EventAPIKeyCreated, OrgID: orgID, Target: Target{Type: "api_key", ID: k.ID},
			Metadata: map[string]any{"label": label}})
	})
	if err != nil {
		return nil, "", err
	}
	return out, plain, nil
}

// RevokeAPIKey implements APIKeys. The key is held, so two revocations at
// once write one entry.
func (sv *Service) RevokeAPIKey(ctx context.Context, orgID, id string) error {
	return sv.update(ctx, func(t Tx) error {
		k, err := t.LockAPIKey(orgID, id)
		if err != nil || k.RevokedAt != nil {
			return err
		}
		now := t.Now()
		k.RevokedAt = &now
		if err := t.PutAPIKey(k); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventAPIKeyRevoked, OrgID: orgID, Target: Target{Type: "api_key", ID: id}})
	})
}

// CreateAppSecret implements AppSecrets.
func (sv *Service) CreateAppSecret(ctx context.Context, ref AppRef, in CreateSecretInput) (*AppSecret, string, error) {
	in, err := in.Check()
	if err != nil {
		return nil, "", err
	}
	id := NewID()
	var out *AppSecret
	var plain string
	err = sv.update(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		env, err := in.Environment(a)
		if err != nil {
			return err
		}
		prefix := PrefixSecretLive
		if env.Name == EnvDevelopment {
			prefix = PrefixSecretTest
		}
		plain = NewSecret(prefix)
		s := &AppSecret{ID: id, OrgID: a.OrgID, AppID: a.ID, EnvironmentID: env.ID, Env: env.Name, Label: in.Label,
			Hash: HashSecret(plain), CreatedAt: t.Now()}
		if err := t.InsertAppSecret(s); err != nil {
			return err
		}
		out = s
		return t.Audit(AuditEvent{Event: EventSecretCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: []string{env.ID},
			Target: Target{Type: "secret", ID: s.ID}, Metadata: map[string]any{"label": in.Label, "environment": env.Name}})
	})
	if err != nil {
		return nil, "", err
	}
	return out, plain, nil
}

// RevokeAppSecret implements AppSecrets. The secret is held, so two
// revocations at once write one entry.
func (sv *Service) RevokeAppSecret(ctx context.Context, ref AppRef, id string) error {
	return sv.update(ctx, func(t Tx) error {
		if _, err := t.App(ref); err != nil {
			return err
		}
		s, err := t.LockAppSecret(ref.AppID, id)
		if err != nil || s.RevokedAt != nil {
			return err
		}
		now := t.Now()
		s.RevokedAt = &now
		if err := t.PutAppSecret(s); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventSecretRevoked, OrgID: s.OrgID, AppID: s.AppID, EnvIDs: []string{s.EnvironmentID},
			Target: Target{Type: "secret", ID: id}})
	})
}

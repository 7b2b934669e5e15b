package store

import "context"

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

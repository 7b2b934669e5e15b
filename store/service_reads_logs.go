package store

import (
	"context"
	"slices"
)

// ListAudit implements AuditLog: the log of the scope's environment, its
// own entries and its application's.
func (sv *Service) ListAudit(ctx context.Context, s Scope, f AuditFilter) (*Page[*AuditEntry], error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *Page[*AuditEntry]
	err := sv.view(ctx, func(t Tx) error {
		_, env, err := t.Scope(s)
		if err != nil {
			return err
		}
		out, err = t.EnvAuditPage(env.ID, f)
		return err
	})
	return out, err
}

// ListOrgAudit implements OrgAuditLog: the entries of no environment. An
// unknown organization is not_found, one with no entries an empty page.
func (sv *Service) ListOrgAudit(ctx context.Context, orgID string, f AuditFilter) (*Page[*AuditEntry], error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *Page[*AuditEntry]
	err := sv.view(ctx, func(t Tx) error {
		if err := t.OrgExists(orgID); err != nil {
			return err
		}
		var err error
		out, err = t.OrgAuditPage(orgID, f)
		return err
	})
	return out, err
}

// ListAPIKeys implements APIKeys.
func (sv *Service) ListAPIKeys(ctx context.Context, orgID string) ([]*APIKey, error) {
	var out []*APIKey
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.APIKeys(orgID)
		return err
	})
	return out, err
}

// ListAppSecrets implements AppSecrets.
func (sv *Service) ListAppSecrets(ctx context.Context, ref AppRef) ([]*AppSecret, error) {
	var out []*AppSecret
	err := sv.view(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		out, err = t.AppSecrets(a.ID)
		return err
	})
	return out, err
}

// ListWebhooks implements Webhooks: the application's endpoints, newest
// first, read as the outbox's expansion reads them (in id order).
func (sv *Service) ListWebhooks(ctx context.Context, ref AppRef) ([]*Webhook, error) {
	out := []*Webhook{}
	err := sv.view(ctx, func(t Tx) error {
		a, err := t.App(ref)
		if err != nil {
			return err
		}
		hooks, err := t.AppWebhooks(a.ID)
		if err != nil {
			return err
		}
		// A clone: the storage may keep the slice it answered with.
		out = slices.Clone(hooks)
		slices.Reverse(out)
		return nil
	})
	return out, err
}

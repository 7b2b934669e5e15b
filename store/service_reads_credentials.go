package store

import (
	"context"
	"slices"
)

// ListAPIKeys implements APIKeys: the organization's keys, newest first.
func (sv *Service) ListAPIKeys(ctx context.Context, orgID string) ([]*APIKey, error) {
	var out []*APIKey
	err := sv.view(ctx, func(t Tx) (err error) {
		out, err = t.APIKeys(orgID)
		return err
	})
	return orEmptyList(out), err
}

// ListAppSecrets implements AppSecrets: the application's secrets, newest
// first; another organization's application is not_found.
func (sv *Service) ListAppSecrets(ctx context.Context, ref AppRef) ([]*AppSecret, error) {
	return appRecords(sv, ctx, ref, Tx.AppSecrets)
}

// ListWebhooks implements Webhooks: the application's endpoints, active or
// not, newest first as every list; another organization's application is
// not_found.
func (sv *Service) ListWebhooks(ctx context.Context, ref AppRef) ([]*Webhook, error) {
	hooks, err := appRecords(sv, ctx, ref, Tx.AppWebhooks)
	if err != nil {
		return nil, err
	}
	// AppWebhooks is in id order, and a storage may share its slice.
	hooks = slices.Clone(hooks)
	slices.Reverse(hooks)
	return hooks, nil
}

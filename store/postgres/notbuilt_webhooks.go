package postgres

// Not yet built: the webhooks part (see the brief).

import (
	"context"
	"errors"
	"io"
	"time"

	"licensectl/store"
)

var _ = io.EOF
var _ = time.Second
var _ context.Context

var errNotBuiltwebhooks = errors.New("postgres: not built yet")

// CreateWebhook implements store.Webhooks.
func (db *DB) CreateWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	return nil, errNotBuiltwebhooks
}

// DeleteWebhook implements store.Webhooks.
func (db *DB) DeleteWebhook(ctx context.Context, ref store.AppRef, id string) error {
	return errNotBuiltwebhooks
}

// ListDeliveries implements store.Webhooks.
func (db *DB) ListDeliveries(ctx context.Context, ref store.AppRef, webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	return nil, errNotBuiltwebhooks
}

// ListWebhooks implements store.Webhooks.
func (db *DB) ListWebhooks(ctx context.Context, ref store.AppRef) ([]*store.Webhook, error) {
	return nil, errNotBuiltwebhooks
}

// RetryDelivery implements store.Webhooks.
func (db *DB) RetryDelivery(ctx context.Context, ref store.AppRef, webhookID string, deliveryID string) error {
	return errNotBuiltwebhooks
}

// UpdateWebhook implements store.Webhooks.
func (db *DB) UpdateWebhook(ctx context.Context, ref store.AppRef, id string, u store.WebhookUpdate) (*store.Webhook, error) {
	return nil, errNotBuiltwebhooks
}

// ClaimDue implements store.Outbox.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, c store.Claim) ([]*store.DeliveryJob, error) {
	return nil, errNotBuiltwebhooks
}

// ExpandEvents implements store.Outbox.
func (db *DB) ExpandEvents(ctx context.Context, limit int) (int, error) {
	return 0, errNotBuiltwebhooks
}

// OutboxStats implements store.Outbox.
func (db *DB) OutboxStats(ctx context.Context) (int, time.Time, error) {
	return 0, time.Time{}, errNotBuiltwebhooks
}

// RecordAttempt implements store.Outbox.
func (db *DB) RecordAttempt(ctx context.Context, deliveryID string, a store.Attempt, p store.RetryPolicy) error {
	return errNotBuiltwebhooks
}

// TestDelivery implements store.Outbox.
func (db *DB) TestDelivery(ctx context.Context, ref store.AppRef, webhookID string, now time.Time, c store.Claim) (*store.DeliveryJob, error) {
	return nil, errNotBuiltwebhooks
}

package postgres

// Not yet built: the billing part (see the brief).

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

var errNotBuiltbilling = errors.New("postgres: not built yet")

// BillingCheckout implements store.Billing.
func (db *DB) BillingCheckout(ctx context.Context, in store.CheckoutInput) (*store.Checkout, error) {
	return nil, errNotBuiltbilling
}

// BillingPlans implements store.Billing.
func (db *DB) BillingPlans(ctx context.Context) ([]store.Tier, error) {
	return nil, errNotBuiltbilling
}

// BillingSubscription implements store.Billing.
func (db *DB) BillingSubscription(ctx context.Context, orgID string) (*store.Subscription, error) {
	return nil, errNotBuiltbilling
}

// BillingUsage implements store.Billing.
func (db *DB) BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error) {
	return nil, errNotBuiltbilling
}

// ConfirmBillingTransaction implements store.Billing.
func (db *DB) ConfirmBillingTransaction(ctx context.Context, id string) (*store.Subscription, error) {
	return nil, errNotBuiltbilling
}

// ConfirmBillingPayment implements store.PaymentCallbacks.
func (db *DB) ConfirmBillingPayment(ctx context.Context, id string, amountCents int64) (*store.Subscription, error) {
	return nil, errNotBuiltbilling
}

// MonthlyRequestLimit implements store.Quotas.
func (db *DB) MonthlyRequestLimit(ctx context.Context, orgID string) (int64, error) {
	return 0, errNotBuiltbilling
}

// SweepBilling implements store.BillingMaintenance.
func (db *DB) SweepBilling(ctx context.Context) ([]string, error) {
	return nil, errNotBuiltbilling
}

// Stats implements store.StatsReporter.
func (db *DB) Stats(ctx context.Context) (store.Stats, error) {
	return store.Stats{}, errNotBuiltbilling
}

// ConfigureBilling replaces the billing policy the store applies.
func (db *DB) ConfigureBilling(p store.BillingPolicy) error {
	return errNotBuiltbilling
}

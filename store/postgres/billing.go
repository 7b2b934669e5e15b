package postgres

import (
	"context"
	"time"

	"licensectl/store"
)

var (
	_ store.Billing            = (*DB)(nil)
	_ store.BillingMaintenance = (*DB)(nil)
	_ store.PaymentCallbacks   = (*DB)(nil)
	_ store.Quotas             = (*DB)(nil)
)

// BillingSubscription implements store.Billing.
func (db *DB) BillingSubscription(ctx context.Context, orgID string) (*store.Subscription, error) {
	var out *store.Subscription
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		out = rec.state().Subscription(orgID, db.BillingPolicy())
		return nil
	})
	return out, err
}

// BillingUsage implements store.Billing. The request count is the row every
// server adds its counts to, so it is the sum over servers (docs/design.md
// §12).
func (db *DB) BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error) {
	var out *store.Usage
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		var counts [3]int64
		for i, res := range []store.Resource{store.ResApplications, store.ResLicenses} {
			if counts[i], err = t.orgCount(orgID, res); err != nil {
				return err
			}
		}
		if counts[2], err = t.billingRequests(orgID, at); err != nil {
			return err
		}
		p := db.BillingPolicy()
		out = p.UsageOf(rec.state().TierIn(p), rec.Status, at, counts[0], counts[1], counts[2])
		return nil
	})
	return out, err
}

// MonthlyRequestLimit implements store.Quotas.
func (db *DB) MonthlyRequestLimit(ctx context.Context, orgID string) (int64, error) {
	p := db.BillingPolicy()
	if !p.Enforce {
		return store.Unlimited, nil
	}
	var limit int64
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		limit = rec.state().TierIn(p).MaxRequestsPerMonth
		return nil
	})
	return limit, err
}

// billingRequests is the stored count of the organization's runtime
// requests in the month of at.
func (t *txn) billingRequests(orgID string, at time.Time) (int64, error) {
	var n int64
	err := t.tx.QueryRow(t.ctx, `SELECT coalesce(sum(requests), 0) FROM runtime_usage WHERE org_id = $1 AND month = $2`,
		orgID, store.MonthKey(at)).Scan(&n)
	return n, err
}

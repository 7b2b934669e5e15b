package postgres

import (
	"context"
	"fmt"
	"time"

	"licensectl/store"
)

var (
	_ store.Billing            = (*DB)(nil)
	_ store.BillingMaintenance = (*DB)(nil)
	_ store.PaymentCallbacks   = (*DB)(nil)
	_ store.Quotas             = (*DB)(nil)
)

// ConfigureBilling sets the tiers, enforcement, grace period and payment
// provider the store applies. p must list at least one tier; tier ids are
// filled from their keys. The policy is configuration, not data: every
// server reads it from its own configuration file.
func (db *DB) ConfigureBilling(p store.BillingPolicy) error {
	if len(p.Tiers) == 0 {
		return fmt.Errorf("billing: no tiers")
	}
	p.Tiers = append([]store.Tier(nil), p.Tiers...)
	for i := range p.Tiers {
		p.Tiers[i].ID = store.TierID(p.Tiers[i].Key)
	}
	db.billing.Store(&p)
	return nil
}

// BillingPlans implements store.Billing.
func (db *DB) BillingPlans(ctx context.Context) ([]store.Tier, error) {
	return append([]store.Tier(nil), db.billingPolicy().Tiers...), nil
}

// BillingSubscription implements store.Billing.
func (db *DB) BillingSubscription(ctx context.Context, orgID string) (*store.Subscription, error) {
	var out *store.Subscription
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		out = rec.subscription(orgID, db.billingPolicy())
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
		p := db.billingPolicy()
		tier := rec.tier(p)
		out = &store.Usage{PeriodStart: store.MonthStart(at), PlanKey: tier.Key, PlanName: tier.Name, Status: rec.Status, Enforced: p.Enforce}
		for _, c := range []struct {
			res store.Resource
			to  *store.UsageCount
			max int64
		}{{store.ResApplications, &out.Applications, tier.MaxApplications}, {store.ResLicenses, &out.LicensesActive, tier.MaxLicenses}} {
			n, err := t.orgCount(orgID, c.res)
			if err != nil {
				return err
			}
			*c.to = store.UsageCount{Current: n, Limit: c.max}
		}
		n, err := t.billingRequests(orgID, at)
		out.RuntimeRequests = store.UsageCount{Current: n, Limit: tier.MaxRequestsPerMonth}
		return err
	})
	return out, err
}

// MonthlyRequestLimit implements store.Quotas.
func (db *DB) MonthlyRequestLimit(ctx context.Context, orgID string) (int64, error) {
	p := db.billingPolicy()
	if !p.Enforce {
		return store.Unlimited, nil
	}
	var limit int64
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		limit = rec.tier(p).MaxRequestsPerMonth
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

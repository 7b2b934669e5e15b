package postgres

import (
	"time"

	"licensectl/store"
)

var (
	_ store.Billing            = (*DB)(nil)
	_ store.BillingMaintenance = (*DB)(nil)
	_ store.PaymentCallbacks   = (*DB)(nil)
	_ store.Quotas             = (*DB)(nil)
)

// RuntimeRequests implements store.Tx: the row every server adds its
// counts to.
func (t *txn) RuntimeRequests(orgID string, at time.Time) (int64, error) {
	var n int64
	err := t.tx.QueryRow(t.ctx, `SELECT coalesce(sum(requests), 0) FROM runtime_usage WHERE org_id = $1 AND month = $2`,
		orgID, store.MonthKey(at)).Scan(&n)
	return n, err
}

// TierCount implements store.Tx.
func (t *txn) TierCount(orgID string, res store.Resource) (int64, error) {
	return t.orgCount(orgID, res)
}

// Subscription implements store.Tx.
func (t *txn) Subscription(orgID string) (store.SubscriptionState, error) {
	rec, err := t.subscription(orgID)
	if err != nil {
		return store.SubscriptionState{}, err
	}
	return rec.state(), nil
}

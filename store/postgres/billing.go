package postgres

import (
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var (
	_ store.Billing            = (*DB)(nil)
	_ store.BillingMaintenance = (*DB)(nil)
	_ store.PaymentCallbacks   = (*DB)(nil)
	_ store.Quotas             = (*DB)(nil)
)

// subscription loads the organization's subscription, the default one when
// none was written. Returns not_found for an unknown organization.
func (t *txn) subscription(orgID string) (*storedoc.Subscription, error) {
	rec, err := doc[storedoc.Subscription](t, `SELECT doc FROM subscriptions WHERE org_id = $1`, uuidOrNil(orgID))
	if err != nil || rec != nil {
		return rec, err
	}
	org, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(orgID))
	if err != nil {
		return nil, err
	}
	def := storedoc.Subscription(store.DefaultSubscription(org.CreatedAt))
	return &def, nil
}

// saveSubscription writes the organization's subscription.
func (t *txn) saveSubscription(orgID string, rec *storedoc.Subscription) error {
	_, err := t.exec(`INSERT INTO subscriptions (org_id, doc) VALUES ($1, $2) ON CONFLICT (org_id) DO UPDATE SET doc = EXCLUDED.doc`,
		orgID, js(rec))
	return err
}

// orgCount is the number of the organization's res counted against its
// tier: applications disabled or not, licenses neither revoked nor banned,
// and members of every role.
func (t *txn) orgCount(orgID string, res store.Resource) (int64, error) {
	var sql string
	switch res {
	case store.ResApplications:
		sql = `SELECT count(*) FROM apps WHERE org_id = $1`
	case store.ResLicenses:
		n, err := t.count(`SELECT count(*) FROM licenses WHERE org_id = $1 AND status <> ALL($2)`, orgID, store.LicenseStatusesUncounted)
		return int64(n), err
	default:
		sql = `SELECT count(*) FROM members WHERE org_id = $1`
	}
	n, err := t.count(sql, orgID)
	return int64(n), err
}

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
	return rec.State(), nil
}

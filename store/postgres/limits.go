package postgres

import (
	"time"

	"licensectl/store"
)

var _ = conflictOn("members_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })

// billingPolicy is the policy in force.
func (db *DB) billingPolicy() *store.BillingPolicy {
	if p := db.billing.Load(); p != nil {
		return p
	}
	return store.UnconfiguredBilling
}

// subscriptionRecord is an organization's stored subscription. Its fields are
// those of store.SubscriptionState, whose transitions move it: the two
// types convert into each other.
type subscriptionRecord struct {
	Status      string     `json:"st"`
	Provider    string     `json:"pv"`
	Plan        string     `json:"pl"`
	TrialEndsAt *time.Time `json:"te,omitempty"`
	PeriodStart time.Time  `json:"ps"`
	PeriodEnd   *time.Time `json:"pe,omitempty"`
}

// subscription loads the organization's subscription, the default one when
// none was written. Returns not_found for an unknown organization.
func (t *txn) subscription(orgID string) (*subscriptionRecord, error) {
	rec, err := doc[subscriptionRecord](t, `SELECT doc FROM subscriptions WHERE org_id = $1`, uuidOrNil(orgID))
	if err != nil || rec != nil {
		return rec, err
	}
	org, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(orgID))
	if err != nil {
		return nil, err
	}
	def := subscriptionRecord(store.DefaultSubscription(org.CreatedAt))
	return &def, nil
}

// saveSubscription writes the organization's subscription.
func (t *txn) saveSubscription(orgID string, rec *subscriptionRecord) error {
	_, err := t.exec(`INSERT INTO subscriptions (org_id, doc) VALUES ($1, $2) ON CONFLICT (org_id) DO UPDATE SET doc = EXCLUDED.doc`,
		orgID, js(rec))
	return err
}

// state is rec as the domain's subscription state.
func (rec *subscriptionRecord) state() store.SubscriptionState { return store.SubscriptionState(*rec) }

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

// enforceLimit refuses, when the policy enforces limits, a change that would
// bring the organization's res past its tier's limit by adding n. It locks
// the organization's row first, so that two creations at the last free slot
// on two servers cannot both pass.
func (t *txn) enforceLimit(orgID string, res store.Resource, n int) error {
	p := t.db.billingPolicy()
	if !p.Enforce {
		return nil
	}
	if _, err := t.exec(`SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(orgID)); err != nil {
		return err
	}
	rec, err := t.subscription(orgID)
	if err != nil {
		return err
	}
	have, err := t.orgCount(orgID, res)
	if err != nil {
		return err
	}
	return rec.state().TierIn(p).CheckRoom(res, have, n)
}

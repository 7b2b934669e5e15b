package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
)

var _ = conflictOn("members_email_key", func() error { return store.Errorf(store.ECodeEmailTaken, "email is taken") })

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

// enforceLimit is the service's EnforceLimit in t.
func (t *txn) enforceLimit(orgID string, res store.Resource, n int) error {
	return t.db.EnforceLimit(t, orgID, res, n)
}

// LockTierCount implements store.Tx: the organization's row is locked
// before the count.
func (t *txn) LockTierCount(orgID string, res store.Resource) (int64, error) {
	if _, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(orgID)); err != nil {
		return 0, err
	}
	return t.orgCount(orgID, res)
}

// LockSubscription implements store.Tx: the organization's row, then the
// stored subscription's, FOR UPDATE, so that a billing pass ageing it
// meanwhile is read, not overwritten.
func (t *txn) LockSubscription(orgID string) (store.SubscriptionState, error) {
	org, err := mustDoc[store.Organization](t, "organization", `SELECT doc FROM orgs WHERE id = $1 FOR UPDATE`, uuidOrNil(orgID))
	if err != nil {
		return store.SubscriptionState{}, err
	}
	rec, err := doc[subscriptionRecord](t, `SELECT doc FROM subscriptions WHERE org_id = $1 FOR UPDATE`, orgID)
	if err != nil || rec == nil {
		return store.DefaultSubscription(org.CreatedAt), err
	}
	return rec.state(), nil
}

// LockSubscriptions implements store.Tx.
func (t *txn) LockSubscriptions() ([]store.OrgSubscription, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT org_id::text, doc FROM subscriptions ORDER BY org_id FOR UPDATE`)
	if err != nil {
		return nil, err
	}
	var out []store.OrgSubscription
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		var org string
		var raw []byte
		if err := r.Scan(&org, &raw); err != nil {
			return err
		}
		rec, err := decode[subscriptionRecord](raw)
		if err != nil {
			return err
		}
		out = append(out, store.OrgSubscription{OrgID: org, State: rec.state()})
		return nil
	})
	return out, err
}

// PutSubscription implements store.Tx.
func (t *txn) PutSubscription(orgID string, s store.SubscriptionState) error {
	rec := subscriptionRecord(s)
	return t.saveSubscription(orgID, &rec)
}

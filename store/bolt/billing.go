package bolt

import (
	"context"
	"encoding/binary"
	"time"

	"licensectl/store"
)

var (
	_ store.Billing            = (*DB)(nil)
	_ store.BillingMaintenance = (*DB)(nil)
	_ store.PaymentCallbacks   = (*DB)(nil)
	_ store.Quotas             = (*DB)(nil)
)

// subscriptionRecord is an organization's stored subscription. Absent, the
// organization is on the default tier since its creation. Its fields are
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
	rec := new(subscriptionRecord)
	ok, err := t.get(bSubscriptions, orgID, rec)
	if err != nil || ok {
		return rec, err
	}
	org := new(store.Organization)
	if err := t.mustGet(bOrgs, orgID, "organization", org); err != nil {
		return nil, err
	}
	def := subscriptionRecord(store.DefaultSubscription(org.CreatedAt))
	return &def, nil
}

// state is rec as the domain's subscription state.
func (rec *subscriptionRecord) state() store.SubscriptionState { return store.SubscriptionState(*rec) }

// resource is what a tier limits (store.Resource).
type resource = store.Resource

const (
	resApplications = store.ResApplications
	resLicenses     = store.ResLicenses
	resMembers      = store.ResMembers
)

// orgCount is the number of the organization's res counted against its tier:
// applications disabled or not, licenses neither revoked nor banned, and
// members of every role.
func (t *txn) orgCount(orgID string, res resource) int64 {
	switch res {
	case resApplications:
		return int64(t.count(bAppsOrg, idb(orgID)))
	case resLicenses:
		return int64(t.count(bLicOrgActive, idb(orgID)))
	default:
		return int64(t.count(bMembersOrg, idb(orgID)))
	}
}

// enforceLimit is the service's EnforceLimit in t.
func (db *DB) enforceLimit(t *txn, orgID string, res resource, n int) error {
	return db.EnforceLimit(t, orgID, res, n)
}

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

// BillingUsage implements store.Billing.
func (db *DB) BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error) {
	var out *store.Usage
	err := db.view(ctx, func(t *txn) error {
		rec, err := t.subscription(orgID)
		if err != nil {
			return err
		}
		p := db.BillingPolicy()
		out = p.UsageOf(rec.state().TierIn(p), rec.Status, at, t.orgCount(orgID, resApplications), t.orgCount(orgID, resLicenses), t.runtimeRequests(orgID, at))
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

// runtimeRequests is the stored count of the organization's runtime requests
// in the month of at.
func (t *txn) runtimeRequests(orgID string, at time.Time) int64 {
	if v := t.tx.Bucket(bUsage).Get(usageKey(orgID, at)); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

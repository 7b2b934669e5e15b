package bolt

import (
	"encoding/binary"
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
	rec := new(storedoc.Subscription)
	ok, err := t.get(bSubscriptions, orgID, rec)
	if err != nil || ok {
		return rec, err
	}
	org := new(store.Organization)
	if err := t.mustGet(bOrgs, orgID, "organization", org); err != nil {
		return nil, err
	}
	def := storedoc.Subscription(store.DefaultSubscription(org.CreatedAt))
	return &def, nil
}

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

// RuntimeRequests implements store.Tx.
func (t *txn) RuntimeRequests(orgID string, at time.Time) (int64, error) {
	if v := t.tx.Bucket(bUsage).Get(usageKey(orgID, at)); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	return 0, nil
}

// TierCount implements store.Tx: the counts are kept.
func (t *txn) TierCount(orgID string, res store.Resource) (int64, error) {
	return t.orgCount(orgID, res), nil
}

// Subscription implements store.Tx.
func (t *txn) Subscription(orgID string) (store.SubscriptionState, error) {
	rec, err := t.subscription(orgID)
	if err != nil {
		return store.SubscriptionState{}, err
	}
	return rec.State(), nil
}

package bolt

import (
	"bytes"
	"fmt"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// pendingKey is a pending checkout's key in the index of expiries.
func pendingKey(bt *store.BillingTransaction) []byte { return key(timeKey(bt.ExpiresAt), idb(bt.ID)) }

// LockTierCount implements store.Tx: one writer holds the whole file.
func (t *txn) LockTierCount(orgID string, res store.Resource) (int64, error) {
	return t.TierCount(orgID, res)
}

// LockSubscription implements store.Tx: one writer holds the whole file.
func (t *txn) LockSubscription(orgID string) (store.SubscriptionState, error) {
	return t.Subscription(orgID)
}

// LockSubscriptions implements store.Tx.
func (t *txn) LockSubscriptions() ([]store.OrgSubscription, error) {
	var out []store.OrgSubscription
	err := t.tx.Bucket(bSubscriptions).ForEach(func(k, _ []byte) error {
		rec := new(storedoc.Subscription)
		if _, err := t.get(bSubscriptions, ids(k), rec); err != nil {
			return err
		}
		out = append(out, store.OrgSubscription{OrgID: ids(k), State: rec.State()})
		return nil
	})
	return out, err
}

// PutSubscription implements store.Tx.
func (t *txn) PutSubscription(orgID string, s store.SubscriptionState) error {
	rec := storedoc.Subscription(s)
	return t.put(bSubscriptions, orgID, &rec)
}

// LockBillingTransaction implements store.Tx.
func (t *txn) LockBillingTransaction(id string) (*store.BillingTransaction, error) {
	rec := new(storedoc.BillingTransaction)
	if err := t.mustGet(bBillingTx, id, "transaction", rec); err != nil {
		return nil, err
	}
	return rec.Domain(), nil
}

// LockExpiredCheckouts implements store.Tx: the index of pending
// expiries, from its oldest entry.
func (t *txn) LockExpiredCheckouts() ([]*store.BillingTransaction, error) {
	limit := timeKey(t.now)
	var out []*store.BillingTransaction
	c := t.tx.Bucket(bBillingPending).Cursor()
	for k, _ := c.First(); k != nil && bytes.Compare(k[:len(limit)], limit) <= 0; k, _ = c.Next() {
		rec := new(storedoc.BillingTransaction)
		if err := t.mustGet(bBillingTx, ids(k[len(limit):]), "transaction", rec); err != nil {
			return nil, fmt.Errorf("pending index: %w", err)
		}
		out = append(out, rec.Domain())
	}
	return out, nil
}

// PutBillingTransaction implements store.Tx.
func (t *txn) PutBillingTransaction(prev, next *store.BillingTransaction) error {
	if err := t.put(bBillingTx, next.ID, storedoc.BillingTransactionOf(next)); err != nil {
		return err
	}
	was := prev != nil && prev.Status == store.TransactionPending
	is := next.Status == store.TransactionPending
	switch {
	case was && !is:
		return t.tx.Bucket(bBillingPending).Delete(pendingKey(prev))
	case is && !was:
		return t.tx.Bucket(bBillingPending).Put(pendingKey(next), []byte{})
	}
	return nil
}

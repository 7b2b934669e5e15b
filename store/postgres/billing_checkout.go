package postgres

import (
	"github.com/jackc/pgx/v5"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// saveBillingTx writes a transaction, its status and expiry as columns (the
// pending index of the sweep).
func (t *txn) saveBillingTx(rec *storedoc.BillingTransaction) error {
	_, err := t.exec(`INSERT INTO billing_transactions (id, org_id, status, expires_at, doc) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, expires_at = EXCLUDED.expires_at, doc = EXCLUDED.doc`,
		rec.ID, rec.OrgID, rec.Status, rec.ExpiresAt, js(rec))
	return err
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
	rec, err := doc[storedoc.Subscription](t, `SELECT doc FROM subscriptions WHERE org_id = $1 FOR UPDATE`, orgID)
	if err != nil || rec == nil {
		return store.DefaultSubscription(org.CreatedAt), err
	}
	return rec.State(), nil
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
		rec, err := decode[storedoc.Subscription](raw)
		if err != nil {
			return err
		}
		out = append(out, store.OrgSubscription{OrgID: org, State: rec.State()})
		return nil
	})
	return out, err
}

// PutSubscription implements store.Tx.
func (t *txn) PutSubscription(orgID string, s store.SubscriptionState) error {
	rec := storedoc.Subscription(s)
	return t.saveSubscription(orgID, &rec)
}

// LockBillingTransaction implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockBillingTransaction(id string) (*store.BillingTransaction, error) {
	rec, err := mustDoc[storedoc.BillingTransaction](t, "transaction", `SELECT doc FROM billing_transactions WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	return rec.Domain(), nil
}

// LockExpiredCheckouts implements store.Tx: the partial index of pending
// expiries.
func (t *txn) LockExpiredCheckouts() ([]*store.BillingTransaction, error) {
	due, err := docs[storedoc.BillingTransaction](t, `SELECT doc FROM billing_transactions WHERE status = $1 AND expires_at <= $2 ORDER BY expires_at FOR UPDATE`,
		store.TransactionPending, t.now)
	out := make([]*store.BillingTransaction, 0, len(due))
	for _, rec := range due {
		out = append(out, rec.Domain())
	}
	return out, err
}

// PutBillingTransaction implements store.Tx: status and expiry are
// columns, the pending index of the sweep.
func (t *txn) PutBillingTransaction(_, next *store.BillingTransaction) error {
	return t.saveBillingTx(storedoc.BillingTransactionOf(next))
}

package postgres

import (
	"time"

	"licensectl/store"
)

// billingTxRecord is a Pix checkout and its payment state: the doc of a
// billing_transactions row, with the fields of store/bolt's record so that
// a copied store reads the same.
type billingTxRecord struct {
	ID        string     `json:"id"`
	OrgID     string     `json:"o"`
	Plan      string     `json:"pl"`
	Amount    int64      `json:"a"`
	Status    string     `json:"st"`
	DocKind   string     `json:"dk"`
	Document  string     `json:"d"`
	Phone     string     `json:"ph"`
	CopyPaste string     `json:"cp"`
	CreatedAt time.Time  `json:"c"`
	ExpiresAt time.Time  `json:"e"`
	PaidAt    *time.Time `json:"p,omitempty"`
}

// saveBillingTx writes a transaction, its status and expiry as columns (the
// pending index of the sweep).
func (t *txn) saveBillingTx(rec *billingTxRecord) error {
	_, err := t.exec(`INSERT INTO billing_transactions (id, org_id, status, expires_at, doc) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, expires_at = EXCLUDED.expires_at, doc = EXCLUDED.doc`,
		rec.ID, rec.OrgID, rec.Status, rec.ExpiresAt, js(rec))
	return err
}

// domain is the checkout of record r.
func (r *billingTxRecord) domain() *store.BillingTransaction {
	return &store.BillingTransaction{ID: r.ID, OrgID: r.OrgID, PlanKey: r.Plan, AmountCents: r.Amount, Status: r.Status,
		Payer: store.Payer{DocumentKind: r.DocKind, Document: r.Document, Phone: r.Phone}, CopyPaste: r.CopyPaste,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, PaidAt: r.PaidAt}
}

// billingTxRecordOf is the record of checkout bt.
func billingTxRecordOf(bt *store.BillingTransaction) *billingTxRecord {
	return &billingTxRecord{ID: bt.ID, OrgID: bt.OrgID, Plan: bt.PlanKey, Amount: bt.AmountCents, Status: bt.Status,
		DocKind: bt.Payer.DocumentKind, Document: bt.Payer.Document, Phone: bt.Payer.Phone, CopyPaste: bt.CopyPaste,
		CreatedAt: bt.CreatedAt, ExpiresAt: bt.ExpiresAt, PaidAt: bt.PaidAt}
}

// LockBillingTransaction implements store.Tx: SELECT … FOR UPDATE.
func (t *txn) LockBillingTransaction(id string) (*store.BillingTransaction, error) {
	rec, err := mustDoc[billingTxRecord](t, "transaction", `SELECT doc FROM billing_transactions WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
	if err != nil {
		return nil, err
	}
	return rec.domain(), nil
}

// LockExpiredCheckouts implements store.Tx: the partial index of pending
// expiries.
func (t *txn) LockExpiredCheckouts() ([]*store.BillingTransaction, error) {
	due, err := docs[billingTxRecord](t, `SELECT doc FROM billing_transactions WHERE status = $1 AND expires_at <= $2 ORDER BY expires_at FOR UPDATE`,
		store.TransactionPending, t.now)
	out := make([]*store.BillingTransaction, 0, len(due))
	for _, rec := range due {
		out = append(out, rec.domain())
	}
	return out, err
}

// PutBillingTransaction implements store.Tx: status and expiry are
// columns, the pending index of the sweep.
func (t *txn) PutBillingTransaction(_, next *store.BillingTransaction) error {
	return t.saveBillingTx(billingTxRecordOf(next))
}

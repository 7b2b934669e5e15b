package bolt

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"licensectl/store"
)

// billingTxRecord is a Pix checkout and its payment state.
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

// BillingCheckout implements store.Billing. The payment request and its QR
// image are built before the transaction, which holds the write lock.
func (db *DB) BillingCheckout(ctx context.Context, in store.CheckoutInput) (*store.Checkout, error) {
	p := db.billingPolicy()
	tier, payer, err := p.CheckCheckout(in)
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	code, qr, err := p.Payments.Request(id, tier.PriceCents)
	if err != nil {
		return nil, err
	}
	err = db.update(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, in.OrgID, "organization", new(store.Organization)); err != nil {
			return err
		}
		rec := &billingTxRecord{ID: id, OrgID: in.OrgID, Plan: tier.Key, Amount: tier.PriceCents, Status: store.TransactionPending,
			DocKind: payer.DocumentKind, Document: payer.Document, Phone: payer.Phone, CopyPaste: code,
			CreatedAt: t.now, ExpiresAt: t.now.Add(store.CheckoutLifetime)}
		if err := t.put(bBillingTx, id, rec); err != nil {
			return err
		}
		if err := t.tx.Bucket(bBillingPending).Put(key(timeKey(rec.ExpiresAt), idb(id)), []byte{}); err != nil {
			return err
		}
		return t.audit(auditEvent{Event: store.EventBillingCheckoutCreated, OrgID: in.OrgID, Target: store.Target{Type: "billing_transaction", ID: id},
			Metadata: map[string]any{"plan": tier.Key, "amount_cents": tier.PriceCents, "provider": store.ProviderPix}})
	})
	if err != nil {
		return nil, err
	}
	return &store.Checkout{TransactionID: id, QRCode: qr, CopyPaste: code, AmountCents: tier.PriceCents}, nil
}

// ConfirmBillingTransaction implements store.Billing. Paying puts the tier in
// force for 30 days from the payment, or adds 30 days to a current paid
// period of the same tier.
func (db *DB) ConfirmBillingTransaction(ctx context.Context, id string) (*store.Subscription, error) {
	return db.confirmBilling(ctx, id, nil)
}

// ConfirmBillingPayment implements store.PaymentCallbacks.
func (db *DB) ConfirmBillingPayment(ctx context.Context, id string, amountCents int64) (*store.Subscription, error) {
	return db.confirmBilling(ctx, id, &amountCents)
}

// confirmBilling confirms the transaction; amount, when not nil, must be
// the transaction's.
func (db *DB) confirmBilling(ctx context.Context, id string, amount *int64) (*store.Subscription, error) {
	p := db.billingPolicy()
	var out *store.Subscription
	err := db.update(ctx, func(t *txn) error {
		rec := new(billingTxRecord)
		if err := t.mustGet(bBillingTx, id, "transaction", rec); err != nil {
			return err
		}
		if amount != nil {
			if err := store.CheckPaymentAmount(*amount, rec.Amount); err != nil {
				return err
			}
		}
		sub, err := t.subscription(rec.OrgID)
		if err != nil {
			return err
		}
		if paid, err := store.CheckPayable(rec.Status, rec.ExpiresAt, t.now); err != nil {
			return err
		} else if paid {
			out = sub.state().Subscription(rec.OrgID, p)
			return nil
		}
		now := t.now
		rec.Status, rec.PaidAt = store.TransactionPaid, &now
		if err := t.put(bBillingTx, id, rec); err != nil {
			return err
		}
		if err := t.tx.Bucket(bBillingPending).Delete(key(timeKey(rec.ExpiresAt), idb(id))); err != nil {
			return err
		}
		paid := subscriptionRecord(store.SubscriptionState(*sub).Paid(rec.Plan, now))
		sub = &paid
		if err := t.put(bSubscriptions, rec.OrgID, sub); err != nil {
			return err
		}
		out = sub.state().Subscription(rec.OrgID, p)
		return t.audit(auditEvent{Event: store.EventBillingPaid, OrgID: rec.OrgID, Target: store.Target{Type: "billing_transaction", ID: id},
			Metadata: map[string]any{"plan": rec.Plan, "amount_cents": rec.Amount, "provider": store.ProviderPix,
				"current_period_end": sub.PeriodEnd.Format(time.RFC3339)}})
	})
	return out, err
}

// SweepBilling implements store.BillingMaintenance. Paid subscriptions are
// few (one per paying organization), so they are walked whole.
func (db *DB) SweepBilling(ctx context.Context) ([]string, error) {
	p := db.billingPolicy()
	grace := time.Duration(p.GraceDays) * 24 * time.Hour
	var changed []string
	err := db.update(ctx, func(t *txn) error {
		changed = changed[:0]
		next := map[string]*subscriptionRecord{}
		err := t.tx.Bucket(bSubscriptions).ForEach(func(k, v []byte) error {
			org := ids(k)
			rec := new(subscriptionRecord)
			if _, err := t.get(bSubscriptions, org, rec); err != nil {
				return err
			}
			if aged, changed := store.SubscriptionState(*rec).Aged(t.now, grace); changed {
				next[org] = (*subscriptionRecord)(&aged)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for org, rec := range next {
			if err := t.put(bSubscriptions, org, rec); err != nil {
				return err
			}
			changed = append(changed, org)
		}
		return t.expireTransactions()
	})
	return changed, err
}

// expireTransactions moves pending transactions past their lifetime to
// expired, walking the expiry index from its oldest entry.
func (t *txn) expireTransactions() error {
	idx := t.tx.Bucket(bBillingPending)
	limit := timeKey(t.now)
	var due [][]byte
	c := idx.Cursor()
	for k, _ := c.First(); k != nil && bytes.Compare(k[:len(limit)], limit) <= 0; k, _ = c.Next() {
		due = append(due, clone(k))
	}
	for _, k := range due {
		id := ids(k[len(limit):])
		rec := new(billingTxRecord)
		if err := t.mustGet(bBillingTx, id, "transaction", rec); err != nil {
			return fmt.Errorf("pending index: %w", err)
		}
		rec.Status = store.TransactionExpired
		if err := t.put(bBillingTx, id, rec); err != nil {
			return err
		}
		if err := idx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

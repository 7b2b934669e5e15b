package postgres

import (
	"context"
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

// BillingCheckout implements store.Billing. The payment request and its QR
// image are built before the transaction, so no row waits on them.
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
		if n, err := t.count(`SELECT count(*) FROM orgs WHERE id = $1`, uuidOrNil(in.OrgID)); err != nil {
			return err
		} else if n == 0 {
			return store.NotFound("organization")
		}
		rec := &billingTxRecord{ID: id, OrgID: in.OrgID, Plan: tier.Key, Amount: tier.PriceCents, Status: store.TransactionPending,
			DocKind: payer.DocumentKind, Document: payer.Document, Phone: payer.Phone, CopyPaste: code,
			CreatedAt: t.now, ExpiresAt: t.now.Add(store.CheckoutLifetime)}
		if err := t.saveBillingTx(rec); err != nil {
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
// the transaction's. The transaction's row is locked first: a callback that
// two servers receive at once is confirmed by the first, and the second
// finds it paid and changes nothing (docs/design.md §12). The
// organization's row is locked next, so that two payments of one
// organization extend its period one after the other, and its stored
// subscription last (the billing pass also locks transactions before
// subscriptions).
func (db *DB) confirmBilling(ctx context.Context, id string, amount *int64) (*store.Subscription, error) {
	p := db.billingPolicy()
	var out *store.Subscription
	err := db.update(ctx, func(t *txn) error {
		rec, err := mustDoc[billingTxRecord](t, "transaction", `SELECT doc FROM billing_transactions WHERE id = $1 FOR UPDATE`, uuidOrNil(id))
		if err != nil {
			return err
		}
		if amount != nil {
			if err := store.CheckPaymentAmount(*amount, rec.Amount); err != nil {
				return err
			}
		}
		if _, err := t.exec(`SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE`, rec.OrgID); err != nil {
			return err
		}
		// The stored subscription too, so that a billing pass ageing it
		// meanwhile is read, not overwritten.
		if _, err := t.exec(`SELECT 1 FROM subscriptions WHERE org_id = $1 FOR UPDATE`, rec.OrgID); err != nil {
			return err
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
		if err := t.saveBillingTx(rec); err != nil {
			return err
		}
		paid := subscriptionRecord(store.SubscriptionState(*sub).Paid(rec.Plan, now))
		sub = &paid
		if err := t.saveSubscription(rec.OrgID, sub); err != nil {
			return err
		}
		out = sub.state().Subscription(rec.OrgID, p)
		return t.audit(auditEvent{Event: store.EventBillingPaid, OrgID: rec.OrgID, Target: store.Target{Type: "billing_transaction", ID: id},
			Metadata: map[string]any{"plan": rec.Plan, "amount_cents": rec.Amount, "provider": store.ProviderPix,
				"current_period_end": sub.PeriodEnd.Format(time.RFC3339)}})
	})
	return out, err
}

// SweepBilling implements store.BillingMaintenance: pending checkouts past
// their lifetime expire, and subscriptions past their period or grace move
// on. Every server runs it; under the pass's advisory lock one does the
// work and the others skip the round (docs/design.md §12). Transactions are
// locked before subscriptions, in the order a confirmation takes them.
// Paid subscriptions are few (one per paying organization), so they are
// walked whole.
func (db *DB) SweepBilling(ctx context.Context) ([]string, error) {
	p := db.billingPolicy()
	grace := time.Duration(p.GraceDays) * 24 * time.Hour
	var changed []string
	err := db.update(ctx, func(t *txn) error {
		changed = nil
		if ok, err := t.passLock("billing"); err != nil || !ok {
			return err
		}
		if err := t.expireBillingTxs(); err != nil {
			return err
		}
		rows, err := t.tx.Query(t.ctx, `SELECT org_id::text, doc FROM subscriptions ORDER BY org_id FOR UPDATE`)
		if err != nil {
			return err
		}
		type aged struct {
			org string
			rec subscriptionRecord
		}
		var next []aged
		for rows.Next() {
			var org string
			var raw []byte
			if err := rows.Scan(&org, &raw); err != nil {
				rows.Close()
				return err
			}
			rec, err := decode[subscriptionRecord](raw)
			if err != nil {
				rows.Close()
				return err
			}
			if a, ok := store.SubscriptionState(*rec).Aged(t.now, grace); ok {
				next = append(next, aged{org, subscriptionRecord(a)})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, a := range next {
			if err := t.saveSubscription(a.org, &a.rec); err != nil {
				return err
			}
			changed = append(changed, a.org)
		}
		return nil
	})
	return changed, err
}

// expireBillingTxs moves pending transactions past their lifetime to
// expired, found through the partial index of pending expiries.
func (t *txn) expireBillingTxs() error {
	due, err := docs[billingTxRecord](t, `SELECT doc FROM billing_transactions WHERE status = $1 AND expires_at <= $2 ORDER BY expires_at FOR UPDATE`,
		store.TransactionPending, t.now)
	if err != nil {
		return err
	}
	for _, rec := range due {
		rec.Status = store.TransactionExpired
		if err := t.saveBillingTx(rec); err != nil {
			return err
		}
	}
	return nil
}

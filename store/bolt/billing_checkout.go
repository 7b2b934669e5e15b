package bolt

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"licensectl/pix"
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

// pixTxID is the BR Code txid of a transaction: the last 25 characters of its
// id without dashes, upper-cased (design.md §10).
func pixTxID(id string) string {
	s := strings.ToUpper(strings.ReplaceAll(id, "-", ""))
	return s[len(s)-pix.MaxTxID:]
}

// checkCheckout validates a checkout request against the policy, in the
// order a caller fixes them: the setting, then the fields.
func checkCheckout(p *store.BillingPolicy, in *store.CheckoutInput) (*store.Tier, string, error) {
	if p.Pix.Key == "" {
		return nil, "", store.Errorf(store.ECodeUnavailable, "Pix checkout is not configured: the operator must set billing.pix.key")
	}
	in.PlanKey = strings.TrimSpace(in.PlanKey)
	if in.PlanKey == "" {
		return nil, "", store.Invalid("billing_plan_key", "billing_plan_key is required")
	}
	tier := p.Tier(in.PlanKey)
	if tier == nil || tier.PriceCents <= 0 {
		var paid []string
		for _, t := range p.Tiers {
			if t.PriceCents > 0 {
				paid = append(paid, t.Key)
			}
		}
		return nil, "", store.Invalid("billing_plan_key", "billing_plan_key must be a paid plan: %s", strings.Join(paid, ", "))
	}
	in.CustomerPhone = strings.TrimSpace(in.CustomerPhone)
	if !pix.ValidE164(in.CustomerPhone) {
		return nil, "", store.Invalid("customer_phone", "customer_phone must be an E.164 number such as +5511987654321")
	}
	doc, kind, err := pix.ParseDocument(in.CustomerDocument)
	if err != nil {
		return nil, "", store.Invalid("customer_document", "customer_document %s", err)
	}
	in.CustomerDocument = doc
	return tier, kind, nil
}

// BillingCheckout implements store.Billing. The BR Code and its QR image are
// built before the transaction, which holds the write lock.
func (db *DB) BillingCheckout(ctx context.Context, in store.CheckoutInput) (*store.Checkout, error) {
	p := db.billingPolicy()
	tier, kind, err := checkCheckout(p, &in)
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	code, err := pix.Payment{Key: p.Pix.Key, MerchantName: p.Pix.MerchantName, MerchantCity: p.Pix.MerchantCity,
		AmountCents: tier.PriceCents, TxID: pixTxID(id)}.BRCode()
	if err != nil {
		return nil, err
	}
	qr, err := pix.QRDataURI(code)
	if err != nil {
		return nil, err
	}
	err = db.update(ctx, func(t *txn) error {
		if err := t.mustGet(bOrgs, in.OrgID, "organization", new(store.Organization)); err != nil {
			return err
		}
		rec := &billingTxRecord{ID: id, OrgID: in.OrgID, Plan: tier.Key, Amount: tier.PriceCents, Status: store.TransactionPending,
			DocKind: kind, Document: in.CustomerDocument, Phone: in.CustomerPhone, CopyPaste: code,
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
	p := db.billingPolicy()
	var out *store.Subscription
	err := db.update(ctx, func(t *txn) error {
		rec := new(billingTxRecord)
		if err := t.mustGet(bBillingTx, id, "transaction", rec); err != nil {
			return err
		}
		sub, err := t.subscription(rec.OrgID)
		if err != nil {
			return err
		}
		switch {
		case rec.Status == store.TransactionPaid:
			out = sub.subscription(rec.OrgID, p)
			return nil
		case rec.Status == store.TransactionExpired || !t.now.Before(rec.ExpiresAt):
			return store.Errorf(store.ECodeTransition, "the transaction expired at %s: start a new checkout", rec.ExpiresAt.Format(time.RFC3339))
		}
		now := t.now
		rec.Status, rec.PaidAt = store.TransactionPaid, &now
		if err := t.put(bBillingTx, id, rec); err != nil {
			return err
		}
		if err := t.tx.Bucket(bBillingPending).Delete(key(timeKey(rec.ExpiresAt), idb(id))); err != nil {
			return err
		}
		if sub.Status == store.SubscriptionActive && sub.Provider == store.ProviderPix && sub.Plan == rec.Plan &&
			sub.PeriodEnd != nil && sub.PeriodEnd.After(now) {
			end := sub.PeriodEnd.Add(store.PaidPeriod)
			sub.PeriodEnd = &end
		} else {
			end := now.Add(store.PaidPeriod)
			sub = &subscriptionRecord{Status: store.SubscriptionActive, Provider: store.ProviderPix, Plan: rec.Plan, PeriodStart: now, PeriodEnd: &end}
		}
		if err := t.put(bSubscriptions, rec.OrgID, sub); err != nil {
			return err
		}
		out = sub.subscription(rec.OrgID, p)
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
			if rec.PeriodEnd == nil {
				return nil
			}
			end := *rec.PeriodEnd
			if rec.Status == store.SubscriptionActive && !t.now.Before(end) {
				rec.Status = store.SubscriptionPastDue
				next[org] = rec
			}
			if rec.Status == store.SubscriptionPastDue && !t.now.Before(end.Add(grace)) {
				next[org] = &subscriptionRecord{Status: store.SubscriptionActive, Provider: store.ProviderNone, PeriodStart: t.now}
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

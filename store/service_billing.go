package store

import (
	"context"
	"time"
)

// ConfigureBilling sets the tiers, enforcement, grace period and payment
// provider the store applies. p must list at least one tier; tier ids are
// filled from their keys. The policy is configuration, not data: every
// server reads it from its own configuration file.
func (sv *Service) ConfigureBilling(p BillingPolicy) error {
	c, err := p.Configured()
	if err != nil {
		return err
	}
	sv.billing.Store(c)
	return nil
}

// BillingPolicy is the policy in force: the one ConfigureBilling set, or
// UnconfiguredBilling.
func (sv *Service) BillingPolicy() *BillingPolicy {
	if p := sv.billing.Load(); p != nil {
		return p
	}
	return UnconfiguredBilling
}

// BillingPlans implements Billing.
func (sv *Service) BillingPlans(context.Context) ([]Tier, error) {
	return append([]Tier(nil), sv.BillingPolicy().Tiers...), nil
}

// BillingSubscription implements Billing.
func (sv *Service) BillingSubscription(ctx context.Context, orgID string) (*Subscription, error) {
	var out *Subscription
	err := sv.storage.View(ctx, func(t Tx) error {
		s, err := t.Subscription(orgID)
		out = s.Subscription(orgID, sv.BillingPolicy())
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BillingUsage implements Billing. A storage whose servers each add their
// request counts to one stored sum (PostgreSQL) reads the sum over
// servers (docs/design.md §12).
func (sv *Service) BillingUsage(ctx context.Context, orgID string, at time.Time) (*Usage, error) {
	p := sv.BillingPolicy()
	var out *Usage
	err := sv.storage.View(ctx, func(t Tx) error {
		s, err := t.Subscription(orgID)
		if err != nil {
			return err
		}
		var counts [3]int64
		for i, res := range []Resource{ResApplications, ResLicenses} {
			if counts[i], err = t.TierCount(orgID, res); err != nil {
				return err
			}
		}
		if counts[2], err = t.RuntimeRequests(orgID, at); err != nil {
			return err
		}
		out = p.UsageOf(s.TierIn(p), s.Status, at, counts[0], counts[1], counts[2])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MonthlyRequestLimit implements Quotas.
func (sv *Service) MonthlyRequestLimit(ctx context.Context, orgID string) (int64, error) {
	p := sv.BillingPolicy()
	if !p.Enforce {
		return Unlimited, nil
	}
	var limit int64
	err := sv.storage.View(ctx, func(t Tx) error {
		s, err := t.Subscription(orgID)
		limit = s.TierIn(p).MaxRequestsPerMonth
		return err
	})
	if err != nil {
		return 0, err
	}
	return limit, nil
}

// EnforceLimit refuses, within t, when the policy enforces limits, a change that
// would bring the organization's res past its tier's limit by adding n.
// The organization is held while it is counted (Tx.LockTierCount), so two
// creations at the last free slot cannot both pass.
func (sv *Service) EnforceLimit(t Tx, orgID string, res Resource, n int) error {
	p := sv.BillingPolicy()
	if !p.Enforce {
		return nil
	}
	have, err := t.LockTierCount(orgID, res)
	if err != nil {
		return err
	}
	// The organization is held: a payment, which holds it too, waits.
	sub, err := t.Subscription(orgID)
	if err != nil {
		return err
	}
	return sub.TierIn(p).CheckRoom(res, have, n)
}

// BillingCheckout implements Billing. The payment request and its QR image
// are built before the transaction, so no writer waits on them.
func (sv *Service) BillingCheckout(ctx context.Context, in CheckoutInput) (*Checkout, error) {
	p := sv.BillingPolicy()
	tier, payer, err := p.CheckCheckout(in)
	if err != nil {
		return nil, err
	}
	id := NewID()
	code, qr, err := p.Payments.Request(id, tier.PriceCents)
	if err != nil {
		return nil, err
	}
	err = sv.update(ctx, func(t Tx) error {
		if err := t.OrgExists(in.OrgID); err != nil {
			return err
		}
		now := t.Now()
		bt := &BillingTransaction{ID: id, OrgID: in.OrgID, PlanKey: tier.Key, AmountCents: tier.PriceCents, Status: TransactionPending,
			Payer: payer, CopyPaste: code, CreatedAt: now, ExpiresAt: now.Add(CheckoutLifetime)}
		if err := t.PutBillingTransaction(nil, bt); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: EventBillingCheckoutCreated, OrgID: in.OrgID, Target: Target{Type: "billing_transaction", ID: id},
			Metadata: map[string]any{"plan": tier.Key, "amount_cents": tier.PriceCents, "provider": ProviderPix}})
	})
	if err != nil {
		return nil, err
	}
	return &Checkout{TransactionID: id, QRCode: qr, CopyPaste: code, AmountCents: tier.PriceCents}, nil
}

// ConfirmBillingTransaction implements Billing. Paying puts the tier in
// force for 30 days from the payment, or adds 30 days to a current paid
// period of the same tier.
func (sv *Service) ConfirmBillingTransaction(ctx context.Context, id string) (*Subscription, error) {
	return sv.confirmBilling(ctx, id, nil)
}

// ConfirmBillingPayment implements PaymentCallbacks.
func (sv *Service) ConfirmBillingPayment(ctx context.Context, id string, amountCents int64) (*Subscription, error) {
	return sv.confirmBilling(ctx, id, &amountCents)
}

// confirmBilling confirms the transaction; amount, when not nil, must be
// the transaction's. The transaction is held first: a callback that two
// servers receive at once is confirmed by the first, and the second finds
// it paid and changes nothing (docs/design.md §12). The subscription is
// held next, so that two payments of one organization extend its period
// one after the other (the billing pass too holds transactions before
// subscriptions).
func (sv *Service) confirmBilling(ctx context.Context, id string, amount *int64) (*Subscription, error) {
	p := sv.BillingPolicy()
	var out *Subscription
	err := sv.update(ctx, func(t Tx) error {
		bt, err := t.LockBillingTransaction(id)
		if err != nil {
			return err
		}
		if amount != nil {
			if err := CheckPaymentAmount(*amount, bt.AmountCents); err != nil {
				return err
			}
		}
		sub, err := t.LockSubscription(bt.OrgID)
		if err != nil {
			return err
		}
		now := t.Now()
		if paid, err := CheckPayable(bt.Status, bt.ExpiresAt, now); err != nil {
			return err
		} else if paid {
			out = sub.Subscription(bt.OrgID, p)
			return nil
		}
		next := *bt
		next.Status, next.PaidAt = TransactionPaid, &now
		if err := t.PutBillingTransaction(bt, &next); err != nil {
			return err
		}
		sub = sub.Paid(bt.PlanKey, now)
		if err := t.PutSubscription(bt.OrgID, sub); err != nil {
			return err
		}
		out = sub.Subscription(bt.OrgID, p)
		return t.Audit(AuditEvent{Event: EventBillingPaid, OrgID: bt.OrgID, Target: Target{Type: "billing_transaction", ID: id},
			Metadata: map[string]any{"plan": bt.PlanKey, "amount_cents": bt.AmountCents, "provider": ProviderPix,
				"current_period_end": sub.PeriodEnd.Format(time.RFC3339)}})
	})
	return out, err
}

// SweepBilling implements BillingMaintenance: pending checkouts past their
// lifetime expire, and subscriptions past their period or grace move on.
// On several servers one does the work under the pass's lock and the
// others skip the round (docs/design.md §12). Transactions are held before
// subscriptions, in the order a confirmation holds them. Paid
// subscriptions are few (one per paying organization), so they are walked
// whole.
func (sv *Service) SweepBilling(ctx context.Context) ([]string, error) {
	grace := time.Duration(sv.BillingPolicy().GraceDays) * 24 * time.Hour
	var changed []string
	err := sv.update(ctx, func(t Tx) error {
		changed = nil
		if ok, err := t.PassLock("billing"); err != nil || !ok {
			return err
		}
		due, err := t.LockExpiredCheckouts()
		if err != nil {
			return err
		}
		for _, bt := range due {
			next := *bt
			next.Status = TransactionExpired
			if err := t.PutBillingTransaction(bt, &next); err != nil {
				return err
			}
		}
		subs, err := t.LockSubscriptions()
		if err != nil {
			return err
		}
		for _, s := range subs {
			if aged, ok := s.State.Aged(t.Now(), grace); ok {
				if err := t.PutSubscription(s.OrgID, aged); err != nil {
					return err
				}
				changed = append(changed, s.OrgID)
			}
		}
		return nil
	})
	return changed, err
}

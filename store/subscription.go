package store

import "time"

// SubscriptionState is what a store keeps of an organization's subscription
// and what its transitions move: the tier it pays for (Plan, a tier key) and
// the paid period. The pure transitions below decide every change, so each
// store only loads and saves the state.
type SubscriptionState struct {
	Status      string
	Provider    string
	Plan        string
	TrialEndsAt *time.Time
	PeriodStart time.Time
	PeriodEnd   *time.Time
}

// DefaultSubscription is the state of an organization on the default tier
// since start: active, paid by nobody.
func DefaultSubscription(start time.Time) SubscriptionState {
	return SubscriptionState{Status: SubscriptionActive, Provider: ProviderNone, PeriodStart: start}
}

// CheckPayable decides whether a transaction with status that expires at
// expiresAt can be paid at now. It returns paid true, and no error, for one
// already paid: confirming it again changes nothing. Returns
// invalid_transition once it expired.
func CheckPayable(status string, expiresAt, now time.Time) (paid bool, err error) {
	switch {
	case status == TransactionPaid:
		return true, nil
	case status == TransactionExpired || !now.Before(expiresAt):
		return false, Errorf(ECodeTransition, "the transaction expired at %s: start a new checkout", expiresAt.Format(time.RFC3339))
	}
	return false, nil
}

// CheckPaymentAmount refuses a provider's notice of paid cents other than
// the transaction's amount: a partial payment must not buy the tier
// (docs/design.md §10). Returns validation_failed naming amount_cents.
func CheckPaymentAmount(paid, amount int64) error {
	if paid != amount {
		return Invalid("amount_cents", "amount_cents %d is not the transaction's amount (%d): only a full payment confirms it", paid, amount)
	}
	return nil
}

// Paid is the subscription after a Pix payment of the tier plan at now: the
// tier is in force for PaidPeriod from the payment, or PaidPeriod more when
// the same tier's paid period is still running.
func (s SubscriptionState) Paid(plan string, now time.Time) SubscriptionState {
	if s.Status == SubscriptionActive && s.Provider == ProviderPix && s.Plan == plan && s.PeriodEnd != nil && s.PeriodEnd.After(now) {
		end := s.PeriodEnd.Add(PaidPeriod)
		s.PeriodEnd = &end
		return s
	}
	end := now.Add(PaidPeriod)
	return SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: plan, PeriodStart: now, PeriodEnd: &end}
}

// Aged is the subscription as time moves it at now, and whether it changed:
// an active paid period that ended is past_due, and past_due beyond grace
// returns to the default tier from now. A subscription without a paid
// period does not age.
func (s SubscriptionState) Aged(now time.Time, grace time.Duration) (SubscriptionState, bool) {
	if s.PeriodEnd == nil {
		return s, false
	}
	end := *s.PeriodEnd
	changed := false
	if s.Status == SubscriptionActive && !now.Before(end) {
		s.Status, changed = SubscriptionPastDue, true
	}
	if s.Status == SubscriptionPastDue && !now.Before(end.Add(grace)) {
		return DefaultSubscription(now), true
	}
	return s, changed
}

// TierIn is the tier in force for s under p: its plan, or the default tier
// when the plan is unset or no longer configured.
func (s SubscriptionState) TierIn(p *BillingPolicy) *Tier {
	if t := p.Tier(s.Plan); t != nil && s.Plan != "" {
		return t
	}
	return p.DefaultTier()
}

// Subscription is s as the organization orgID's subscription under p.
func (s SubscriptionState) Subscription(orgID string, p *BillingPolicy) *Subscription {
	return &Subscription{ID: SubscriptionID(orgID), OrgID: orgID, Status: s.Status, Provider: s.Provider,
		Plan: *s.TierIn(p), TrialEndsAt: s.TrialEndsAt, CurrentPeriodStart: s.PeriodStart, CurrentPeriodEnd: s.PeriodEnd}
}

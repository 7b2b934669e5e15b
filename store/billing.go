package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Unlimited is the limit value of a tier that does not cap a resource.
const Unlimited = -1

// Subscription statuses and providers of docs/design.md §10.
const (
	SubscriptionActive   = "active"
	SubscriptionPastDue  = "past_due"
	SubscriptionCanceled = "canceled"

	ProviderNone = "none"
	ProviderPix  = "pix"
)

// Billing transaction statuses: pending → paid | expired.
const (
	TransactionPending = "pending"
	TransactionPaid    = "paid"
	TransactionExpired = "expired"
)

// Billing periods of docs/design.md §10.
const (
	// PaidPeriod is how long one payment keeps a paid tier in force.
	PaidPeriod = 30 * 24 * time.Hour
	// CheckoutLifetime is how long a Pix checkout waits for its payment.
	CheckoutLifetime = time.Hour
)

// Tier is a billing plan: a price for 30 days and the limits it grants an
// organization. Limits of Unlimited (-1) do not cap.
type Tier struct {
	ID                    string
	Key                   string
	Name                  string
	PriceCents            int64
	MaxApplications       int64
	MaxLicenses           int64
	MaxRequestsPerMonth   int64
	AuditLogRetentionDays int64
	MaxDashboardMembers   int64
}

// tierNamespace makes tier ids stable: the same key gives the same id on
// every server and after every restart.
var tierNamespace = uuid.MustParse("6b1f7c52-3f0e-4d53-9a7e-1c1e0b5d2a10")

// TierID is the stable id of the tier with key.
func TierID(key string) string { return uuid.NewSHA1(tierNamespace, []byte("tier:"+key)).String() }

// SubscriptionID is the stable id of an organization's subscription, which
// exists from the organization's creation whether or not it was ever written.
func SubscriptionID(orgID string) string {
	return uuid.NewSHA1(tierNamespace, []byte("subscription:"+orgID)).String()
}

// Within reports whether n is within limit (Unlimited always is).
func Within(n, limit int64) bool { return limit == Unlimited || n <= limit }

// PaymentProvider is how a checkout is paid: it checks what the payer gives
// and renders the payment request. The store keeps the transaction and the
// subscription it pays for; the provider keeps nothing. It is injected into
// the store with the billing policy, as the token signer is with the runtime
// options, so no store implements a payment scheme (pix.Checkout is Pix's).
type PaymentProvider interface {
	// CheckPayer checks and normalizes the payer's phone and tax document.
	// Returns validation_failed naming customer_phone or customer_document.
	CheckPayer(phone, document string) (Payer, error)
	// Request renders the payment of amountCents for the transaction with
	// id: the code a payer copies and pastes, and its QR code as a PNG data
	// URI.
	Request(id string, amountCents int64) (code, qr string, err error)
}

// Payer is who pays a checkout, as the provider normalized it.
type Payer struct {
	Phone        string
	Document     string
	DocumentKind string // "cpf" or "cnpj"
}

// BillingPolicy is the billing configuration the store applies: the tiers
// (the first is the one organizations start on and return to), whether their
// limits are enforced, the grace period after a paid period, and the payment
// provider checkouts pay through (nil turns checkout off).
type BillingPolicy struct {
	Tiers     []Tier
	Enforce   bool
	GraceDays int
	Payments  PaymentProvider
}

// Tier returns the tier with key, or nil.
func (p *BillingPolicy) Tier(key string) *Tier {
	for i := range p.Tiers {
		if p.Tiers[i].Key == key {
			return &p.Tiers[i]
		}
	}
	return nil
}

// CheckCheckout checks a checkout against the policy, in the order a caller
// fixes them: the setting, the tier, then the payer. It returns the tier to
// pay and the payer. Returns unavailable (no payment provider),
// validation_failed.
func (p *BillingPolicy) CheckCheckout(in CheckoutInput) (*Tier, Payer, error) {
	if p.Payments == nil {
		return nil, Payer{}, Errorf(ECodeUnavailable, "Pix checkout is not configured: the operator must set billing.pix.key")
	}
	key := strings.TrimSpace(in.PlanKey)
	if key == "" {
		return nil, Payer{}, Invalid("billing_plan_key", "billing_plan_key is required")
	}
	tier := p.Tier(key)
	if tier == nil || tier.PriceCents <= 0 {
		var paid []string
		for _, t := range p.Tiers {
			if t.PriceCents > 0 {
				paid = append(paid, t.Key)
			}
		}
		return nil, Payer{}, Invalid("billing_plan_key", "billing_plan_key must be a paid plan: %s", strings.Join(paid, ", "))
	}
	payer, err := p.Payments.CheckPayer(in.CustomerPhone, in.CustomerDocument)
	if err != nil {
		return nil, Payer{}, err
	}
	return tier, payer, nil
}

// Resource is what a tier limits per organization.
type Resource int

// The resources a tier limits.
const (
	ResApplications Resource = iota // applications, disabled or not
	ResLicenses                     // licenses neither revoked nor banned
	ResMembers                      // dashboard members of every role
)

// CheckRoom refuses adding n of res to an organization on tier t that has
// cur of them, when that would pass t's limit. Returns plan_limit_reached.
func (t *Tier) CheckRoom(res Resource, cur int64, n int) error {
	limit, what := t.MaxApplications, "applications"
	switch res {
	case ResLicenses:
		limit, what = t.MaxLicenses, "active licenses"
	case ResMembers:
		limit, what = t.MaxDashboardMembers, "dashboard members"
	}
	if !Within(cur+int64(n), limit) {
		return Errorf(ECodePlanLimit, "the %s plan allows %d %s and the organization has %d", t.Name, limit, what, cur)
	}
	return nil
}

// UnconfiguredBilling applies until a store's billing is configured: one
// tier that caps nothing, so a store opened without configuration limits
// nobody.
var UnconfiguredBilling = &BillingPolicy{Tiers: []Tier{{
	ID: TierID("free"), Key: "free", Name: "Free", MaxApplications: Unlimited, MaxLicenses: Unlimited,
	MaxRequestsPerMonth: Unlimited, AuditLogRetentionDays: Unlimited, MaxDashboardMembers: Unlimited,
}}}

// DefaultTier is the tier organizations start on: "free" when configured,
// else the first listed.
func (p *BillingPolicy) DefaultTier() *Tier {
	if t := p.Tier("free"); t != nil {
		return t
	}
	return &p.Tiers[0]
}

// Subscription is an organization's billing state. Plan is the tier in force.
type Subscription struct {
	ID                 string
	OrgID              string
	Status             string
	Provider           string
	Plan               Tier
	TrialEndsAt        *time.Time
	CurrentPeriodStart time.Time
	CurrentPeriodEnd   *time.Time
}

// UsageCount is one counted resource and its limit in the tier in force.
type UsageCount struct {
	Current int64
	Limit   int64
}

// Usage is an organization's consumption in the current UTC month.
type Usage struct {
	PeriodStart     time.Time
	PlanKey         string
	PlanName        string
	Status          string
	Applications    UsageCount
	LicensesActive  UsageCount
	RuntimeRequests UsageCount
	// Enforced says whether the limits refuse what would cross them
	// (billing.enforce); when false they are only counted.
	Enforced bool
}

// UsageOf is the usage of an organization on tier t with status, in the
// month of at, from its counts: applications, active licenses and the
// month's runtime requests.
func (p *BillingPolicy) UsageOf(t *Tier, status string, at time.Time, apps, licenses, requests int64) *Usage {
	return &Usage{PeriodStart: MonthStart(at), PlanKey: t.Key, PlanName: t.Name, Status: status, Enforced: p.Enforce,
		Applications:    UsageCount{Current: apps, Limit: t.MaxApplications},
		LicensesActive:  UsageCount{Current: licenses, Limit: t.MaxLicenses},
		RuntimeRequests: UsageCount{Current: requests, Limit: t.MaxRequestsPerMonth},
	}
}

// Configured is p as a store applies it, or an error when it lists no
// tier: its own copy of the tiers, each with its stable id (TierID).
func (p BillingPolicy) Configured() (*BillingPolicy, error) {
	if len(p.Tiers) == 0 {
		return nil, fmt.Errorf("billing: no tiers")
	}
	p.Tiers = append([]Tier(nil), p.Tiers...)
	for i := range p.Tiers {
		p.Tiers[i].ID = TierID(p.Tiers[i].Key)
	}
	return &p, nil
}

// MonthStart is the first instant of t's UTC month.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// CheckoutInput asks for a Pix checkout of a paid tier.
type CheckoutInput struct {
	OrgID            string
	PlanKey          string
	CustomerPhone    string
	CustomerDocument string
}

// Checkout is a pending Pix payment: the copy-paste BR Code and its QR code
// as a PNG data URI.
type Checkout struct {
	TransactionID string
	QRCode        string
	CopyPaste     string
	AmountCents   int64
}

// BillingTransaction is one checkout and its payment state.
type BillingTransaction struct {
	ID          string
	OrgID       string
	PlanKey     string
	AmountCents int64
	Status      string
	Payer       Payer
	CopyPaste   string // the payment request the payer was shown
	CreatedAt   time.Time
	ExpiresAt   time.Time
	PaidAt      *time.Time
}

// Billing is the billing side of an organization: tiers, its subscription,
// its usage and Pix checkouts. Limits are enforced by the creating calls of
// the other interfaces (CreateApplication, AddMember, GenerateLicenses
// return plan_limit_reached) when the policy says so.
type Billing interface {
	// BillingPlans lists the configured tiers in order.
	BillingPlans(ctx context.Context) ([]Tier, error)
	// BillingSubscription returns the organization's subscription. Returns
	// not_found.
	BillingSubscription(ctx context.Context, orgID string) (*Subscription, error)
	// BillingUsage counts the organization's resources at read time; the
	// runtime requests are those stored for the month of at (a server adds
	// the ones it has not flushed yet). Returns not_found.
	BillingUsage(ctx context.Context, orgID string, at time.Time) (*Usage, error)
	// BillingCheckout creates a pending Pix transaction for a paid tier.
	// Returns unavailable (no Pix key configured), validation_failed,
	// not_found.
	BillingCheckout(ctx context.Context, in CheckoutInput) (*Checkout, error)
	// ConfirmBillingTransaction records the payment of a transaction and
	// puts its tier in force; confirming a paid one again changes nothing.
	// Returns not_found, invalid_transition (expired).
	ConfirmBillingTransaction(ctx context.Context, id string) (*Subscription, error)
}

// PaymentCallbacks records what a payment provider reports.
type PaymentCallbacks interface {
	// ConfirmBillingPayment is ConfirmBillingTransaction for a provider's
	// notice of a payment of amountCents. An amount other than the
	// transaction's is refused and changes nothing, whatever the
	// transaction's status: a partial payment must not buy the tier.
	// Returns not_found, validation_failed naming amount_cents,
	// invalid_transition (expired).
	ConfirmBillingPayment(ctx context.Context, id string, amountCents int64) (*Subscription, error)
}

// Quotas answers the runtime API's quota check.
type Quotas interface {
	// MonthlyRequestLimit is the runtime requests per month the
	// organization's tier allows, Unlimited when limits are not enforced.
	// Returns not_found.
	MonthlyRequestLimit(ctx context.Context, orgID string) (int64, error)
}

// BillingMaintenance moves billing states with time.
type BillingMaintenance interface {
	// SweepBilling moves subscriptions whose paid period ended to past_due,
	// those past their grace period back to the default tier, and pending
	// transactions past their lifetime to expired. It returns the
	// organizations whose subscription changed.
	SweepBilling(ctx context.Context) ([]string, error)
}

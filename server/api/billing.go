package api

import (
	"time"

	"licensectl/store"
)

// BillingPlan is a billing tier with its limits; -1 is unlimited.
type BillingPlan struct {
	ID                    string `json:"id"`
	Key                   string `json:"key"`
	Name                  string `json:"name"`
	PriceCents            int64  `json:"price_cents"`
	MaxApplications       int64  `json:"max_applications"`
	MaxLicenses           int64  `json:"max_licenses"`
	MaxRequestsPerMonth   int64  `json:"max_requests_per_month"`
	AuditLogRetentionDays int64  `json:"audit_log_retention_days"`
	MaxDashboardMembers   int64  `json:"max_dashboard_members"`
}

// BillingPlans answers GET /billing/plans.
type BillingPlans struct {
	Plans []BillingPlan `json:"plans"`
}

// Subscription is an organization's billing state and the plan in force.
type Subscription struct {
	ID                 string      `json:"id"`
	Status             string      `json:"status"`
	Provider           string      `json:"provider"`
	TrialEndsAt        *time.Time  `json:"trial_ends_at"`
	CurrentPeriodStart time.Time   `json:"current_period_start"`
	CurrentPeriodEnd   *time.Time  `json:"current_period_end"`
	Plan               BillingPlan `json:"plan"`
}

// SubscriptionBody answers GET /billing/subscription and the confirmations.
type SubscriptionBody struct {
	Subscription Subscription `json:"subscription"`
}

// UsageCount is one counted resource and its limit.
type UsageCount struct {
	Current int64 `json:"current"`
	Limit   int64 `json:"limit"`
}

// UsagePlan names the plan in force in a usage answer.
type UsagePlan struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// UsageCounts are the counted resources of a usage answer.
type UsageCounts struct {
	Applications    UsageCount `json:"applications"`
	LicensesActive  UsageCount `json:"licenses_active"`
	RuntimeRequests UsageCount `json:"runtime_requests"`
}

// Usage answers GET /billing/usage.
type Usage struct {
	PeriodStart time.Time   `json:"period_start"`
	Plan        UsagePlan   `json:"plan"`
	Usage       UsageCounts `json:"usage"`
	// Enforced is billing.enforce: false means the limits are counted and
	// reported but nothing is refused for crossing them.
	Enforced bool `json:"enforced"`
}

// CheckoutRequest is the body of POST /billing/checkout.
type CheckoutRequest struct {
	BillingPlanKey   string `json:"billing_plan_key"`
	CustomerPhone    string `json:"customer_phone"`
	CustomerDocument string `json:"customer_document"`
}

// Checkout answers POST /billing/checkout.
type Checkout struct {
	TransactionID string `json:"transaction_id"`
	QRCode        string `json:"qrcode"`
	CopyPaste     string `json:"copy_paste"`
	AmountCents   int64  `json:"amount_cents"`
}

// PixCallback is the body of the payment provider's callback.
type PixCallback struct {
	TransactionID string `json:"transaction_id"`
	Status        string `json:"status"`
	// AmountCents, when sent, must be the transaction's amount.
	AmountCents *int64 `json:"amount_cents,omitempty"`
}

// BillingPlanOf is the wire form of a tier.
func BillingPlanOf(t store.Tier) BillingPlan {
	return BillingPlan{ID: t.ID, Key: t.Key, Name: t.Name, PriceCents: t.PriceCents, MaxApplications: t.MaxApplications,
		MaxLicenses: t.MaxLicenses, MaxRequestsPerMonth: t.MaxRequestsPerMonth, AuditLogRetentionDays: t.AuditLogRetentionDays,
		MaxDashboardMembers: t.MaxDashboardMembers}
}

// Tier is the domain form of a wire plan.
func (p BillingPlan) Tier() store.Tier {
	return store.Tier{ID: p.ID, Key: p.Key, Name: p.Name, PriceCents: p.PriceCents, MaxApplications: p.MaxApplications,
		MaxLicenses: p.MaxLicenses, MaxRequestsPerMonth: p.MaxRequestsPerMonth, AuditLogRetentionDays: p.AuditLogRetentionDays,
		MaxDashboardMembers: p.MaxDashboardMembers}
}

// SubscriptionOf is the wire form of a subscription.
func SubscriptionOf(s *store.Subscription) Subscription {
	return Subscription{ID: s.ID, Status: s.Status, Provider: s.Provider, TrialEndsAt: s.TrialEndsAt,
		CurrentPeriodStart: s.CurrentPeriodStart, CurrentPeriodEnd: s.CurrentPeriodEnd, Plan: BillingPlanOf(s.Plan)}
}

// Subscription is the domain form of a wire subscription; the organization
// is the caller's to fill.
func (s Subscription) Subscription() *store.Subscription {
	return &store.Subscription{ID: s.ID, Status: s.Status, Provider: s.Provider, TrialEndsAt: s.TrialEndsAt,
		CurrentPeriodStart: s.CurrentPeriodStart, CurrentPeriodEnd: s.CurrentPeriodEnd, Plan: s.Plan.Tier()}
}

// UsageOf is the wire form of a usage read.
func UsageOf(u *store.Usage) Usage {
	return Usage{PeriodStart: u.PeriodStart, Plan: UsagePlan{Key: u.PlanKey, Name: u.PlanName, Status: u.Status},
		Usage: UsageCounts{
			Applications:    UsageCount(u.Applications),
			LicensesActive:  UsageCount(u.LicensesActive),
			RuntimeRequests: UsageCount(u.RuntimeRequests),
		}, Enforced: u.Enforced}
}

// Domain is the domain form of a wire usage read.
func (u Usage) Domain() *store.Usage {
	return &store.Usage{PeriodStart: u.PeriodStart, PlanKey: u.Plan.Key, PlanName: u.Plan.Name, Status: u.Plan.Status,
		Applications: store.UsageCount(u.Usage.Applications), LicensesActive: store.UsageCount(u.Usage.LicensesActive),
		RuntimeRequests: store.UsageCount(u.Usage.RuntimeRequests), Enforced: u.Enforced}
}

// Package storedoc holds the documents that store/bolt and store/postgres
// persist as the same JSON: one Go type per document, so that the two
// stores cannot drift apart field by field and a copied store reads the
// same on either side. Its JSON is pinned by a golden test: a changed tag
// is a changed on-disk format in both stores.
//
// The documents are not in package store because store knows no storage
// format; they convert to and from its domain types here.
package storedoc

import (
	"time"

	"licensectl/store"
)

// Subscription is an organization's stored subscription. Absent, the
// organization is on the default tier since its creation. Its fields are
// those of store.SubscriptionState, whose transitions move it: the two
// types convert into each other.
type Subscription struct {
	Status      string     `json:"st"`
	Provider    string     `json:"pv"`
	Plan        string     `json:"pl"`
	TrialEndsAt *time.Time `json:"te,omitempty"`
	PeriodStart time.Time  `json:"ps"`
	PeriodEnd   *time.Time `json:"pe,omitempty"`
}

// State is s as the domain's subscription state.
func (s *Subscription) State() store.SubscriptionState { return store.SubscriptionState(*s) }

// BillingTransaction is a Pix checkout and its payment state.
type BillingTransaction struct {
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

// Domain is the checkout of document r.
func (r *BillingTransaction) Domain() *store.BillingTransaction {
	return &store.BillingTransaction{ID: r.ID, OrgID: r.OrgID, PlanKey: r.Plan, AmountCents: r.Amount, Status: r.Status,
		Payer: store.Payer{DocumentKind: r.DocKind, Document: r.Document, Phone: r.Phone}, CopyPaste: r.CopyPaste,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, PaidAt: r.PaidAt}
}

// BillingTransactionOf is the document of checkout bt.
func BillingTransactionOf(bt *store.BillingTransaction) *BillingTransaction {
	return &BillingTransaction{ID: bt.ID, OrgID: bt.OrgID, Plan: bt.PlanKey, Amount: bt.AmountCents, Status: bt.Status,
		DocKind: bt.Payer.DocumentKind, Document: bt.Payer.Document, Phone: bt.Payer.Phone, CopyPaste: bt.CopyPaste,
		CreatedAt: bt.CreatedAt, ExpiresAt: bt.ExpiresAt, PaidAt: bt.PaidAt}
}

// Onboarding is a member's saved onboarding progress.
type Onboarding struct {
	TourStatus        string            `json:"ts"`
	CurrentStep       int               `json:"cs"`
	CompletedSteps    []string          `json:"st"`
	DismissedFeatures []string          `json:"df"`
	FeatureProgress   map[string]string `json:"fp"`
	CompletedAt       *time.Time        `json:"ca,omitempty"`
}

// Progress is the progress document r saved, the initial one when r is nil
// (nothing saved yet). It shares no slice or map with r.
func (r *Onboarding) Progress() *store.OnboardingProgress {
	p := store.NewOnboardingProgress()
	if r == nil {
		return p
	}
	p.TourStatus, p.CurrentStep, p.CompletedAt = r.TourStatus, r.CurrentStep, r.CompletedAt
	p.CompletedSteps = append(p.CompletedSteps, r.CompletedSteps...)
	p.DismissedFeatures = append(p.DismissedFeatures, r.DismissedFeatures...)
	for k, v := range r.FeatureProgress {
		p.FeatureProgress[k] = v
	}
	return p
}

// OnboardingOf is the document of progress p.
func OnboardingOf(p *store.OnboardingProgress) *Onboarding {
	return &Onboarding{TourStatus: p.TourStatus, CurrentStep: p.CurrentStep, CompletedSteps: p.CompletedSteps,
		DismissedFeatures: p.DismissedFeatures, FeatureProgress: p.FeatureProgress, CompletedAt: p.CompletedAt}
}

// PartnerIdentity links a provider identity (issuer, subject) to an
// account; the identity itself is the key (bbolt) or columns (PostgreSQL).
type PartnerIdentity struct {
	MemberID string    `json:"m"`
	LinkedAt time.Time `json:"at"`
	// AccountVerified says the account's address was verified before the
	// link was made. A password reset drops the links without it; a
	// document written before the field existed reads as false, so it is
	// dropped too (docs/decisions.md).
	AccountVerified bool `json:"v,omitempty"`
}

// Webhook is an endpoint as stored: the domain's fields and what only the
// dispatcher reads.
type Webhook struct {
	ID           string     `json:"id"`
	OrgID        string     `json:"org"`
	AppID        string     `json:"app"`
	URL          string     `json:"url"`
	Events       []string   `json:"ev"`
	Status       string     `json:"st"`
	Secret       string     `json:"sec"`
	FailingSince *time.Time `json:"fail,omitempty"`
	// TimedOut: the last attempt ran into webhooks.timeout, so the endpoint
	// gets one send in flight instead of two.
	TimedOut  bool      `json:"to,omitempty"`
	CreatedAt time.Time `json:"ca"`
	UpdatedAt time.Time `json:"ua"`
}

// Domain is w as the domain's endpoint. Its event list is its own: bbolt
// hands out documents its decode cache may share.
func (w *Webhook) Domain() *store.Webhook {
	return &store.Webhook{ID: w.ID, OrgID: w.OrgID, AppID: w.AppID, URL: w.URL, Events: append([]string(nil), w.Events...),
		Status: w.Status, Secret: w.Secret, FailingSince: w.FailingSince, TimedOut: w.TimedOut, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// WebhookOf is the document of endpoint w.
func WebhookOf(w *store.Webhook) *Webhook {
	return &Webhook{ID: w.ID, OrgID: w.OrgID, AppID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status,
		Secret: w.Secret, FailingSince: w.FailingSince, TimedOut: w.TimedOut, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

package bolt

import (
	"context"
	"time"

	"licensectl/store"
)

var _ store.Onboarding = (*DB)(nil)

// onboardingRecord is a member's saved onboarding progress.
type onboardingRecord struct {
	TourStatus        string            `json:"ts"`
	CurrentStep       int               `json:"cs"`
	CompletedSteps    []string          `json:"st"`
	DismissedFeatures []string          `json:"df"`
	FeatureProgress   map[string]string `json:"fp"`
	CompletedAt       *time.Time        `json:"ca,omitempty"`
}

// onboarding loads the member's progress, the initial one when none was saved.
func (t *txn) onboarding(memberID string) (*store.OnboardingProgress, error) {
	if err := t.mustGet(bMembers, memberID, "member", new(store.Member)); err != nil {
		return nil, err
	}
	rec := new(onboardingRecord)
	ok, err := t.get(bOnboarding, memberID, rec)
	if err != nil {
		return nil, err
	}
	p := store.NewOnboardingProgress()
	if !ok {
		return p, nil
	}
	p.TourStatus, p.CurrentStep, p.CompletedAt = rec.TourStatus, rec.CurrentStep, rec.CompletedAt
	p.CompletedSteps = append(p.CompletedSteps, rec.CompletedSteps...)
	p.DismissedFeatures = append(p.DismissedFeatures, rec.DismissedFeatures...)
	for k, v := range rec.FeatureProgress {
		p.FeatureProgress[k] = v
	}
	return p, nil
}

// Onboarding implements store.Onboarding.
func (db *DB) Onboarding(ctx context.Context, memberID string) (*store.OnboardingProgress, error) {
	var out *store.OnboardingProgress
	err := db.view(ctx, func(t *txn) (err error) {
		out, err = t.onboarding(memberID)
		return err
	})
	return out, err
}

// UpdateOnboarding implements store.Onboarding.
func (db *DB) UpdateOnboarding(ctx context.Context, memberID string, u store.OnboardingUpdate) (*store.OnboardingProgress, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	var out *store.OnboardingProgress
	err := db.update(ctx, func(t *txn) error {
		p, err := t.onboarding(memberID)
		if err != nil {
			return err
		}
		if err := p.Apply(u, t.now); err != nil {
			return err
		}
		out = p
		return t.put(bOnboarding, memberID, &onboardingRecord{TourStatus: p.TourStatus, CurrentStep: p.CurrentStep,
			CompletedSteps: p.CompletedSteps, DismissedFeatures: p.DismissedFeatures, FeatureProgress: p.FeatureProgress, CompletedAt: p.CompletedAt})
	})
	return out, err
}

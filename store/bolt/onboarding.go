package bolt

import (
	"time"

	"licensectl/store"
)

// onboardingRecord is a member's saved onboarding progress.
type onboardingRecord struct {
	TourStatus        string            `json:"ts"`
	CurrentStep       int               `json:"cs"`
	CompletedSteps    []string          `json:"st"`
	DismissedFeatures []string          `json:"df"`
	FeatureProgress   map[string]string `json:"fp"`
	CompletedAt       *time.Time        `json:"ca,omitempty"`
}

// Onboarding implements store.Tx.
func (t *txn) Onboarding(memberID string) (*store.OnboardingProgress, error) {
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

// LockOnboarding implements store.Tx: one writer holds the whole file.
func (t *txn) LockOnboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.Onboarding(memberID)
}

// onboardingRecordOf is the record of progress p.
func onboardingRecordOf(p *store.OnboardingProgress) *onboardingRecord {
	return &onboardingRecord{TourStatus: p.TourStatus, CurrentStep: p.CurrentStep, CompletedSteps: p.CompletedSteps,
		DismissedFeatures: p.DismissedFeatures, FeatureProgress: p.FeatureProgress, CompletedAt: p.CompletedAt}
}

// PutOnboarding implements store.Tx.
func (t *txn) PutOnboarding(memberID string, p *store.OnboardingProgress) error {
	return t.put(bOnboarding, memberID, onboardingRecordOf(p))
}

package api

import (
	"time"

	"licensectl/store"
)

// OnboardingProgress is a dashboard member's own onboarding progress.
type OnboardingProgress struct {
	TourStatus        string            `json:"tour_status"`
	CurrentStep       int               `json:"current_step"`
	CompletedSteps    []string          `json:"completed_steps"`
	DismissedFeatures []string          `json:"dismissed_features"`
	FeatureProgress   map[string]string `json:"feature_progress"`
	CompletedAt       *time.Time        `json:"completed_at"`
}

// OnboardingUpdate is the body of PATCH /onboarding/progress; every field is
// optional.
type OnboardingUpdate struct {
	TourStatus       *string `json:"tour_status,omitempty"`
	CurrentStep      *int    `json:"current_step,omitempty"`
	CompletedStep    *string `json:"completed_step,omitempty"`
	DismissedFeature *string `json:"dismissed_feature,omitempty"`
	FeatureKey       *string `json:"feature_key,omitempty"`
	FeatureStatus    *string `json:"feature_status,omitempty"`
}

// OnboardingProgressOf is the wire form of a member's progress.
func OnboardingProgressOf(p *store.OnboardingProgress) OnboardingProgress {
	return OnboardingProgress{TourStatus: p.TourStatus, CurrentStep: p.CurrentStep, CompletedSteps: p.CompletedSteps,
		DismissedFeatures: p.DismissedFeatures, FeatureProgress: p.FeatureProgress, CompletedAt: p.CompletedAt}
}

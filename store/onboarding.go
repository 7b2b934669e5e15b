package store

import (
	"context"
	"regexp"
	"slices"
	"time"
)

// Onboarding statuses of the tour and of each feature.
const (
	OnboardingNotStarted = "not_started"
	OnboardingInProgress = "in_progress"
	OnboardingCompleted  = "completed"
	OnboardingDismissed  = "dismissed"
)

// Onboarding bounds.
const (
	MaxOnboardingStep = 100
	// MaxOnboardingEntries bounds each list and the feature map, so that a
	// client looping on new keys cannot grow a member's record without end.
	MaxOnboardingEntries = 200
)

var onboardingKey = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// OnboardingProgress is one dashboard member's own progress through the
// product tour and its features.
type OnboardingProgress struct {
	TourStatus        string
	CurrentStep       int
	CompletedSteps    []string
	DismissedFeatures []string
	FeatureProgress   map[string]string
	CompletedAt       *time.Time
}

// NewOnboardingProgress is the progress of a member who has done nothing yet.
func NewOnboardingProgress() *OnboardingProgress {
	return &OnboardingProgress{TourStatus: OnboardingNotStarted, CompletedSteps: []string{}, DismissedFeatures: []string{},
		FeatureProgress: map[string]string{}}
}

// OnboardingUpdate is a partial update; nil fields change nothing.
// CompletedStep and DismissedFeature append to their lists once;
// FeatureKey and FeatureStatus come together and set one feature.
type OnboardingUpdate struct {
	TourStatus       *string
	CurrentStep      *int
	CompletedStep    *string
	DismissedFeature *string
	FeatureKey       *string
	FeatureStatus    *string
}

func validOnboardingStatus(s string) bool {
	switch s {
	case OnboardingNotStarted, OnboardingInProgress, OnboardingCompleted, OnboardingDismissed:
		return true
	}
	return false
}

// Validate checks every field before anything changes; the error names the
// first offending field.
func (u OnboardingUpdate) Validate() error {
	const statuses = "not_started, in_progress, completed or dismissed"
	if u.TourStatus != nil && !validOnboardingStatus(*u.TourStatus) {
		return Invalid("tour_status", "tour_status must be %s", statuses)
	}
	if u.CurrentStep != nil && (*u.CurrentStep < 0 || *u.CurrentStep > MaxOnboardingStep) {
		return Invalid("current_step", "current_step must be between 0 and %d", MaxOnboardingStep)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"completed_step", u.CompletedStep}, {"dismissed_feature", u.DismissedFeature}, {"feature_key", u.FeatureKey}} {
		if f.v != nil && !onboardingKey.MatchString(*f.v) {
			return Invalid(f.name, "%s must match ^[a-z0-9][a-z0-9._-]{0,63}$", f.name)
		}
	}
	switch {
	case u.FeatureKey != nil && u.FeatureStatus == nil:
		return Invalid("feature_status", "feature_status is required with feature_key")
	case u.FeatureStatus != nil && u.FeatureKey == nil:
		return Invalid("feature_key", "feature_key is required with feature_status")
	case u.FeatureStatus != nil && !validOnboardingStatus(*u.FeatureStatus):
		return Invalid("feature_status", "feature_status must be %s", statuses)
	}
	return nil
}

// Apply changes p by u, which must be valid, at now. It returns a
// validation error, changing nothing, when a list or the feature map would
// grow past MaxOnboardingEntries.
func (p *OnboardingProgress) Apply(u OnboardingUpdate, now time.Time) error {
	grows := func(list []string, v *string) bool {
		return v != nil && len(list) >= MaxOnboardingEntries && !slices.Contains(list, *v)
	}
	switch {
	case grows(p.CompletedSteps, u.CompletedStep):
		return Invalid("completed_step", "at most %d completed steps are kept", MaxOnboardingEntries)
	case grows(p.DismissedFeatures, u.DismissedFeature):
		return Invalid("dismissed_feature", "at most %d dismissed features are kept", MaxOnboardingEntries)
	case u.FeatureKey != nil && len(p.FeatureProgress) >= MaxOnboardingEntries && p.FeatureProgress[*u.FeatureKey] == "":
		return Invalid("feature_key", "at most %d features are kept", MaxOnboardingEntries)
	}
	if u.TourStatus != nil {
		switch {
		case *u.TourStatus == OnboardingCompleted && p.CompletedAt == nil:
			at := now
			p.CompletedAt = &at
		case *u.TourStatus != OnboardingCompleted:
			p.CompletedAt = nil
		}
		p.TourStatus = *u.TourStatus
	}
	if u.CurrentStep != nil {
		p.CurrentStep = *u.CurrentStep
	}
	if u.CompletedStep != nil && !slices.Contains(p.CompletedSteps, *u.CompletedStep) {
		p.CompletedSteps = append(p.CompletedSteps, *u.CompletedStep)
	}
	if u.DismissedFeature != nil && !slices.Contains(p.DismissedFeatures, *u.DismissedFeature) {
		p.DismissedFeatures = append(p.DismissedFeatures, *u.DismissedFeature)
	}
	if u.FeatureKey != nil {
		p.FeatureProgress[*u.FeatureKey] = *u.FeatureStatus
	}
	return nil
}

// Onboarding stores each dashboard member's own onboarding progress.
type Onboarding interface {
	// Onboarding returns the member's progress, the initial one when none
	// was saved. Returns not_found.
	Onboarding(ctx context.Context, memberID string) (*OnboardingProgress, error)
	// UpdateOnboarding validates u, applies it and returns the whole
	// progress. Returns validation_failed, not_found.
	UpdateOnboarding(ctx context.Context, memberID string, u OnboardingUpdate) (*OnboardingProgress, error)
}
